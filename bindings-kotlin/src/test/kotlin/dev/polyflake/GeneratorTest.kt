package dev.polyflake

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

class GeneratorTest {
    @Test
    fun `nextId runs through the JNI binding the library made itself`() {
        assertTrue(JniPath.bound, "RegisterNatives through JNA's JNIEnv was refused")
        Generator(Layout.SNOWFLAKE, "node_id" to 9L).use { g ->
            val ids = LongArray(10_000) { g.nextId() }
            for (i in 1 until ids.size) assertTrue(ids[i - 1] < ids[i])
            assertEquals(setOf(9L), ids.map { Polyflake.decode(it, Layout.SNOWFLAKE)["node_id"] }.toSet())
        }
    }

    @Test
    fun `one generator shared by many threads never duplicates`() {
        Generator(Layout.SNOWFLAKE, "node_id" to 5L).use { g ->
            val seen = ConcurrentHashMap.newKeySet<Long>()
            val pool = Executors.newFixedThreadPool(8)
            val perThread = 30_000
            val futures = (0 until 8).map {
                pool.submit<List<Long>> {
                    val mine = ArrayList<Long>(perThread + 5_000)
                    repeat(perThread) { mine.add(g.nextId()) }
                    mine.addAll(g.nextIds(5_000).toList())
                    mine
                }
            }
            for (f in futures) {
                val ids = f.get(60, TimeUnit.SECONDS)
                for (i in 1 until ids.size) assertTrue(ids[i - 1] < ids[i], "strictly increasing within a thread")
                ids.forEach { assertTrue(seen.add(it), "duplicate $it") }
            }
            pool.shutdown()
            assertEquals(8 * 35_000, seen.size)
            assertEquals(setOf(5L), seen.map { Polyflake.decode(it, Layout.SNOWFLAKE)["node_id"] }.toSet())
        }
    }

    @Test
    fun `ids carry the current time and bit-63 layouts come out negative`() {
        Generator(Layout.TWITTER, "datacenter_id" to 1L, "machine_id" to 2L).use { g ->
            val before = System.currentTimeMillis()
            val id = g.nextId()
            val after = System.currentTimeMillis()
            assertTrue(Polyflake.decode(id, Layout.TWITTER).timestampMs in (before - 2)..(after + 2))
        }
        val top = Polyflake.maxId(Layout.DISCORD, Layout.DISCORD.maxTimestampMs)
        assertEquals(-1L, top)
        assertEquals("18446744073709551615", Polyflake.formatId(top))
        assertEquals(Layout.DISCORD.maxTimestampMs, Polyflake.decode(top, Layout.DISCORD).timestampMs)
    }

    @Test
    fun `bad arguments name themselves`() {
        val e = assertThrows<IllegalArgumentException> { Generator(Layout.TWITTER, "datacenter_id" to -1L, "machine_id" to 0L) }
        assertTrue(e.message!!.contains("datacenter_id"))
        val range = assertThrows<FieldOutOfRangeException> { Generator(Layout.TWITTER, "datacenter_id" to 32L, "machine_id" to 0L) }
        assertTrue(range.message!!.contains("datacenter_id = 32 is out of range 0..=31"), range.message)
        assertThrows<InvalidArgumentException> { Generator(Layout.TWITTER, "datacenter_id" to 1L) }
        assertThrows<InvalidArgumentException> { Polyflake.formatId(1, "base99") }
        assertThrows<IllegalArgumentException> { Polyflake.compose(Layout.SNOWFLAKE, 1_700_000_000_000, -1, "node_id" to 1L) }
        assertThrows<TimestampBeforeEpochException> { Polyflake.minId(Layout.TWITTER, 0) }
    }

    @Test
    fun `clock going backwards and a closed generator`() {
        val clock = ManualClock(Layout.TWITTER.epochMs + 10_000)
        val g = Generator(Layout.TWITTER, "datacenter_id" to 0L, "machine_id" to 0L, clock = clock, onClockBackwards = OnClockBackwards.Fail)
        g.nextId()
        clock.advance(-7)
        val e = assertThrows<ClockMovedBackwardsException> { g.nextId() }
        assertTrue(e.message!!.contains("by 7 ms"))
        assertEquals(7L to 0L, e.behindMs to e.allowedMs)
        g.close()
        val closed = assertThrows<IllegalStateException> { g.nextId() }
        val cause = closed.cause as LeaseLostException
        assertEquals(LeaseLostReason.CLOSED to false, cause.reason to cause.retryable)
        g.close()
    }

    @Test
    fun `stats count ceiling waits and clock events`() {
        val clock = ManualClock(Layout.SNOWFLAKE.epochMs + 10_000)
        val g = Generator(Layout.SNOWFLAKE, "node_id" to 1L, clock = clock, onClockBackwards = OnClockBackwards.Logical)
        assertEquals(GeneratorStats(0, 0, 0, 0, null), g.stats())
        g.nextId()
        clock.advance(-3)
        g.nextId() // issued ahead of a clock that is behind
        assertEquals(1L, g.stats().clockBackwardsRanAhead)
        val strict = Generator(Layout.SNOWFLAKE, "node_id" to 2L, clock = clock, onClockBackwards = OnClockBackwards.Fail)
        strict.nextId()
        clock.advance(-1)
        assertThrows<ClockMovedBackwardsException> { strict.nextId() }
        assertEquals(1L, strict.stats().clockBackwardsRefused)
        // A tick's 4096 sequence values spent: the next call waits for the next tick.
        val wall = Generator(Layout.SNOWFLAKE, "node_id" to 3L)
        wall.nextIds(3 * 4096)
        assertTrue(wall.stats().ceilingWaits >= 1)
    }

    @Test
    fun `an invalid argument says its kind`() {
        val missing = assertThrows<InvalidArgumentException> { Generator(Layout.TWITTER, "datacenter_id" to 1L) }
        assertEquals(ArgumentKind.MISSING_FIELD, missing.kind)
        val unknown = assertThrows<InvalidArgumentException> { Polyflake.formatId(1L, "base62") }
        assertEquals(ArgumentKind.UNKNOWN_NAME, unknown.kind)
    }

    @Test
    fun `close gives up the identity at once while other threads still call`() {
        val dir = java.nio.file.Files.createTempDirectory("polyflake-close")
        withEnv(mapOf("POLYFLAKE_STATE_DIR" to dir.toString())) {
            val layout = Layout.custom(1288834974657, 41, listOf("node_id" to 2), sequenceBits = 20)
            val first = Generator.fromEnv(layout)
            val issued = java.util.concurrent.atomic.AtomicLong()
            val pool = Executors.newFixedThreadPool(3)
            val calls = (0 until 3).map {
                pool.submit<Pair<List<Long>, Throwable>> {
                    val ids = ArrayList<Long>()
                    while (true) {
                        try {
                            ids.add(first.nextId())
                            issued.incrementAndGet()
                        } catch (e: IllegalStateException) {
                            return@submit ids to e
                        }
                    }
                    @Suppress("UNREACHABLE_CODE")
                    ids to IllegalStateException()
                }
            }
            // Close while the threads are issuing, however slowly they started.
            while (issued.get() < 10_000) Thread.onSpinWait()
            first.close()
            // Free at once: the same value, and only IDs after every earlier one.
            Generator.fromEnv(layout).use { second ->
                assertEquals(first.nodeFields, second.nodeFields)
                val after = second.nextId()
                val before = calls.flatMap { it.get(10, TimeUnit.SECONDS).first }
                assertTrue(before.isNotEmpty())
                assertTrue(after > before.max(), "the next holder starts past every ID issued before close")
            }
            pool.shutdown()
            assertThrows<IllegalStateException> { first.nextIds(2) }
        }
        dir.toFile().deleteRecursively()
    }

    @Test
    fun `a Rust panic is an exception, not a crash`() {
        assertThrows<Exception> { dev.polyflake.ffi.panicForTests() }
        assertEquals(Layout.TWITTER, Layout.preset("twitter"))
    }

    @Test
    fun `fromEnv leases distinct identities on this host`() {
        Generator.fromEnv(Layout.SNOWFLAKE).use { a ->
            Generator.fromEnv(Layout.SNOWFLAKE).use { b ->
                assertTrue(a.identitySource.startsWith("local lease on node"), a.identitySource)
                assertNotEquals(a.nodeFields, b.nodeFields)
                assertTrue(a.nextId() != b.nextId())
            }
        }
    }

    @Test
    fun `a batch past the core's maximum is a typed error, not an allocation`() {
        Generator(Layout.TWITTER, "datacenter_id" to 1L, "machine_id" to 2L).use { g ->
            val e = assertThrows<FieldOutOfRangeException> { g.nextIds(Int.MAX_VALUE) }
            assertEquals("FIELD_OUT_OF_RANGE", e.code)
            assertTrue(e.message!!.contains("16777216"), e.message)
            assertEquals(3, g.nextIds(3).size)
        }
    }

    @Test
    fun `exceptions carry the core error's fields`() {
        val range = assertThrows<FieldOutOfRangeException> {
            Polyflake.compose(Layout.TWITTER, 1_700_000_000_000, 0, "datacenter_id" to 1L, "machine_id" to 32L)
        }
        assertEquals(Triple("machine_id", 32uL, 31uL), Triple(range.field, range.value, range.max))
        val early = assertThrows<TimestampBeforeEpochException> {
            Polyflake.compose(Layout.TWITTER, 5, 0, "datacenter_id" to 1L, "machine_id" to 1L)
        }
        assertEquals(5L to 1_288_834_974_657L, early.timestampMs to early.epochMs)
        val text = assertThrows<InvalidEncodingException> { Polyflake.parseId("x!", "base58") }
        assertEquals("base58", text.encoding)
    }

    @Test
    fun `a state directory that cannot be created is a StateIoException with the OS error`() {
        val file = java.nio.file.Files.createTempFile("polyflake-not-a-dir", "")
        withEnv(mapOf("POLYFLAKE_STATE_DIR" to file.toString())) {
            val e = assertThrows<StateIoException> { Generator.fromEnv(Layout.SNOWFLAKE) }
            assertEquals("STATE_IO", e.code)
            assertTrue(e.path.startsWith(file.toString()), e.path)
            assertTrue((e.osError ?: 0) > 0, e.message)
        }
        java.nio.file.Files.delete(file)
    }
}
