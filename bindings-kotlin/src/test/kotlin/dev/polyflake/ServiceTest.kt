package dev.polyflake

import org.json.JSONObject
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean

/**
 * `Generator.fromService` against real `polyflake serve` replicas leasing from one real etcd
 * (tests/service_cluster.py starts them and stops them by PID): one replica killed and one paused
 * while four threads take IDs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServiceTest {
    private lateinit var cluster: JSONObject

    private fun run(vararg args: String): String = Launchers.run("service_cluster.py", *args)

    private fun signal(pid: Long, name: String) {
        check(ProcessBuilder("kill", "-$name", pid.toString()).start().waitFor() == 0) { "kill -$name $pid" }
    }

    @BeforeAll
    fun start() {
        val cli = System.getenv("POLYFLAKE_CLI")
        checkNotNull(cli) { "POLYFLAKE_CLI names a polyflake built with serve (scripts/test-kotlin.sh sets it)" }
        cluster = JSONObject(run("start", "--cli", cli))
    }

    @AfterAll
    fun stop() {
        if (::cluster.isInitialized) run("stop", cluster.getString("dir"))
    }

    @Test
    fun `a killed and a paused replica cost no duplicate and no error`() {
        val replicas = cluster.getJSONArray("replicas").map { it as JSONObject }
        val service = Generator.fromService(replicas.map { it.getString("url") }, batch = 500, requestTimeout = Duration.ofMillis(300))
        assertEquals(500 to 250, service.batch to service.lowWater)
        val stop = AtomicBoolean(false)
        val results = arrayOfNulls<Pair<LongArray, Long>>(4)
        val errors = java.util.concurrent.ConcurrentLinkedQueue<Throwable>()
        val takers = (0 until 4).map { t ->
            Thread {
                val ids = ArrayList<Long>()
                var longest = 0L
                try {
                    while (!stop.get()) {
                        val began = System.nanoTime()
                        ids.add(service.nextId())
                        longest = maxOf(longest, System.nanoTime() - began)
                    }
                } catch (e: Throwable) {
                    errors.add(e)
                }
                results[t] = ids.toLongArray() to longest
            }.apply { start() }
        }
        Thread.sleep(1500)
        signal(replicas[0].getLong("pid"), "KILL")
        Thread.sleep(1500)
        signal(replicas[1].getLong("pid"), "STOP")
        Thread.sleep(2000)
        signal(replicas[1].getLong("pid"), "CONT")
        Thread.sleep(1000)
        stop.set(true)
        takers.forEach { it.join() }

        assertTrue(errors.isEmpty(), errors.joinToString())
        val all = results.flatMap { it!!.first.asList() }
        assertEquals(all.size, all.toSet().size, "no ID twice")
        assertTrue(all.size > 10_000, "${all.size} IDs")
        val stats = service.stats()
        // Batches of 500 to 8,000 (the default maxBatch, 16 × 500).
        assertTrue(service.batch in 500..8000, "${service.batch}")
        assertTrue(stats.batches * 8000 >= all.size)
        assertTrue(stats.failovers >= 1, "the killed replica was skipped: $stats")
        assertEquals(0, stats.refused)
        val twitter = Layout.preset("twitter")
        val nodes = all.map { Polyflake.decode(it, twitter).nodes }.toSet()
        assertTrue(nodes.size >= 2, nodes.toString())
        val longest = results.maxOf { it!!.second } / 1_000_000
        println("${all.size} IDs, stalls ${stats.stalls}, longest nextId $longest ms")
        service.close()
        val closed = assertThrows<IllegalStateException> { service.nextId() }
        assertEquals(LeaseLostReason.CLOSED, (closed.cause as LeaseLostException).reason)
    }

    @Test
    fun `no replica answering is a typed retryable error`() {
        val port = Launchers.closedPort()
        Generator.fromService(listOf("http://127.0.0.1:$port"), deadline = Duration.ofMillis(300)).use { service ->
            val began = System.nanoTime()
            val e = assertThrows<LeaseLostException> { service.nextIds(3) }
            assertTrue(System.nanoTime() - began >= 300_000_000L)
            assertEquals(LeaseLostReason.UNREACHABLE, e.reason)
            assertTrue(e.retryable)
            assertTrue(e.message!!.contains("127.0.0.1:$port"), e.message)
            assertEquals(1, service.stats().refused)
        }
    }

    @Test
    fun `bad settings are coded errors`() {
        val url = listOf("http://127.0.0.1:1")
        assertThrows<InvalidArgumentException> { Generator.fromService(emptyList()) }
        assertThrows<InvalidArgumentException> { Generator.fromService(listOf("https://127.0.0.1:1")) }
        assertThrows<FieldOutOfRangeException> { Generator.fromService(url, batch = 0) }
        assertThrows<FieldOutOfRangeException> { Generator.fromService(url, batch = 100_001) }
        assertThrows<FieldOutOfRangeException> { Generator.fromService(url, batch = 10, lowWater = 11) }
        assertThrows<InvalidArgumentException> { Generator.fromService(url, deadline = Duration.ZERO) }
        assertThrows<IllegalArgumentException> { Generator.fromService(url, batch = -1) }
        assertThrows<IllegalArgumentException> { Generator.fromService(url, deadline = Duration.ofMillis(-5)) }
    }
}
