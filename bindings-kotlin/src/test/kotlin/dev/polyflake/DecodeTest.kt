package dev.polyflake

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.random.Random

/**
 * `decode` applies the core's shifts and masks in Kotlin (ADR 0004); the
 * core's own decoder, reached through the generated uniffi call, is the oracle.
 */
class DecodeTest {
    private fun core(id: Long, layout: Layout): Parts {
        val p = dev.polyflake.ffi.decode(layout.ffi, id.toULong())
        val nodes = LinkedHashMap<String, Long>()
        p.nodes.forEach { nodes[it.name] = it.value.toLong() }
        return Parts(id, layout.name, p.timestampMs, nodes, p.sequence.toLong())
    }

    private fun randomLayout(rnd: Random): Layout? {
        val timeBits = rnd.nextInt(1, 64)
        val nodes = (0 until rnd.nextInt(0, 5)).map { "f$it" to rnd.nextInt(1, 20) }
        val sequenceBits = rnd.nextInt(1, 24)
        val epoch = rnd.nextLong(-2_000_000_000_000L, 2_000_000_000_000L)
        return try {
            Layout.custom(epoch, timeBits, nodes, sequenceBits, rnd.nextLong(1, 1_000), rnd.nextBoolean())
        } catch (e: InvalidLayoutException) {
            null // wider than 64 bits, or past the last Unix millisecond
        }
    }

    @Test
    fun `decode in Kotlin reads every ID as the core does`() {
        val rnd = Random(20261201)
        val layouts = Layout.PRESETS.map { Layout.preset(it) } +
            (0 until 1_000).mapNotNull { randomLayout(rnd) }.take(80)
        var checked = 0
        var refused = 0
        for (layout in layouts) {
            val valid = layout.plan[0]
            repeat(200) {
                val raw = rnd.nextLong()
                val id = if (it % 4 == 0) raw else raw and valid
                if (id and valid.inv() != 0L) {
                    val ours = assertThrows<FieldOutOfRangeException> { Polyflake.decode(id, layout) }
                    val theirs = assertThrows<FieldOutOfRangeException> { mapped { core(id, layout) } }
                    assertEquals(theirs.message, ours.message)
                    refused++
                } else {
                    val ours = Polyflake.decode(id, layout)
                    val theirs = core(id, layout)
                    assertEquals(theirs, ours, "$layout id=$id")
                    assertEquals(theirs.hashCode(), ours.hashCode())
                    assertEquals(theirs.toString(), ours.toString())
                    assertEquals(theirs.nodes.keys.toList(), ours.nodes.keys.toList())
                    for ((name, value) in theirs.nodes) assertEquals(value, ours[name])
                    checked++
                }
            }
        }
        assertTrue(checked > 10_000 && refused > 1_000, "checked $checked, refused $refused")
    }

    @Test
    fun `node fields answer like a map`() {
        val parts = Polyflake.decode(Polyflake.compose(Layout.TWITTER, 1_700_000_000_000, 7, "datacenter_id" to 3L, "machine_id" to 30L), Layout.TWITTER)
        assertEquals(mapOf("datacenter_id" to 3L, "machine_id" to 30L), parts.nodes)
        assertEquals(2, parts.nodes.size)
        assertNull(parts.nodes["sequence"])
        assertTrue("machine_id" in parts.nodes)
        assertThrows<NoSuchElementException> { parts["shard_id"] }
        assertEquals(parts, parts.copy())
    }
}
