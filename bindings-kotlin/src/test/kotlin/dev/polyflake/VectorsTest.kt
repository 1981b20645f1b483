package dev.polyflake

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.time.Instant

class VectorsTest {
    private val layouts = Vectors.load("layouts.json")
    private val compose = Vectors.load("compose.json")

    @Test
    fun `runs against the packaged jar`() {
        val source = Polyflake::class.java.protectionDomain.codeSource.location.path
        assertTrue(source.endsWith(".jar"), source)
    }

    @Test
    fun presets() {
        for (def in layouts.getJSONArray("presets").objects()) {
            val l = Layout.preset(def.getString("name"))
            assertEquals(def.getString("epoch_ms").toLong(), l.epochMs)
            assertEquals(def.getLong("tick_ms"), l.tickMs)
            assertEquals(def.getInt("time_bits"), l.timeBits)
            assertEquals(def.getInt("sequence_bits"), l.sequenceBits)
            assertEquals(def.getBoolean("sequence_above_nodes"), l.sequenceAboveNodes)
            assertEquals(def.getInt("unused_bits"), l.unusedBits)
            assertEquals(def.getString("max_timestamp_ms").toLong(), l.maxTimestampMs)
            assertEquals(def.getJSONArray("nodes").objects().map { it.getString("name") to it.getInt("bits") }, l.nodes)
            assertEquals(l, Vectors.spec(def).let { Layout.preset(def.getString("name")) })
        }
        assertEquals(Layout.TWITTER, Layout.preset("twitter"))
    }

    @Test
    fun `invalid layouts and unknown presets`() {
        for (c in layouts.getJSONArray("invalid").objects()) {
            val e = assertThrows<InvalidLayoutException>(c.getString("why")) { Vectors.spec(c.getJSONObject("spec")) }
            assertEquals(c.getString("error"), e.code)
        }
        for (i in 0 until layouts.getJSONArray("unknown_presets").length()) {
            assertThrows<InvalidLayoutException> { Layout.preset(layouts.getJSONArray("unknown_presets").getString(i)) }
        }
    }

    @Test
    fun `compose decode explain`() {
        val cases = compose.getJSONArray("cases").objects()
        assertTrue(cases.size > 50)
        for (c in cases) {
            val l = Vectors.layout(c.getString("layout"))
            val id = Vectors.bits(c.getString("id"))
            val ts = c.getString("timestamp_ms").toLong()
            val seq = c.getString("sequence").toLong()
            val nodes = Vectors.nodes(c.getJSONObject("nodes"))
            assertEquals(id, Polyflake.compose(l, ts, seq, nodes), c.toString())
            val parts = Polyflake.decode(id, l)
            assertEquals(ts, parts.timestampMs)
            assertEquals(seq, parts.sequence)
            assertEquals(nodes, parts.nodes)
            if (!c.isNull("time")) assertEquals(Instant.parse(c.getString("time")), parts.time)
            val explained = Polyflake.explain(id, l).map { listOf(it.name, it.msb, it.lsb, it.width, java.lang.Long.toUnsignedString(it.value), it.bits) }
            val expected = c.getJSONArray("explain").objects().map {
                listOf(it.getString("name"), it.getInt("msb"), it.getInt("lsb"), it.getInt("width"), it.getString("value"), it.getString("bits"))
            }
            assertEquals(expected, explained)
        }
        for (c in compose.getJSONArray("floor").objects()) {
            val l = Vectors.layout(c.getString("layout"))
            val id = Polyflake.compose(l, c.getString("timestamp_ms").toLong(), c.getString("sequence").toLong(), Vectors.nodes(c.getJSONObject("nodes")))
            assertEquals(Vectors.bits(c.getString("id")), id)
            assertEquals(c.getString("decoded_timestamp_ms").toLong(), Polyflake.decode(id, l).timestampMs)
        }
        for (c in compose.getJSONArray("min_max").objects()) {
            val l = Vectors.layout(c.getString("layout"))
            assertEquals(Vectors.bits(c.getString("min")), Polyflake.minId(l, c.getString("timestamp_ms").toLong()))
            assertEquals(Vectors.bits(c.getString("max")), Polyflake.maxId(l, c.getString("timestamp_ms").toLong()))
        }
    }

    @Test
    fun `errors carry their codes`() {
        for (c in Vectors.load("errors.json").getJSONArray("cases").objects()) {
            val l = Vectors.layout(c.getString("layout"))
            val e = assertThrows<PolyflakeException>(c.toString()) {
                when (c.getString("op")) {
                    "compose" -> Polyflake.compose(l, c.getString("timestamp_ms").toLong(), c.getString("sequence").toLong(), Vectors.nodes(c.getJSONObject("nodes")))
                    "decode" -> Polyflake.decode(Vectors.bits(c.getString("id")), l)
                    "min_id" -> Polyflake.minId(l, c.getString("timestamp_ms").toLong())
                    else -> Polyflake.maxId(l, c.getString("timestamp_ms").toLong())
                }
            }
            assertEquals(c.getString("error"), e.code, c.toString())
            if (c.has("field")) assertTrue(e.message!!.startsWith(c.getString("field")), e.message)
            if (c.has("kind")) assertEquals(c.getString("kind"), (e as InvalidArgumentException).kind.name.lowercase(), c.toString())
        }
    }

    @Test
    fun encodings() {
        val v = Vectors.load("encodings.json")
        val names = (0 until v.getJSONArray("encodings").length()).map { v.getJSONArray("encodings").getString(it) }
        assertEquals(names, Polyflake.ENCODINGS)
        for (c in v.getJSONArray("cases").objects()) {
            val id = Vectors.bits(c.getString("id"))
            for (enc in names) {
                if (enc == "bytes") {
                    assertEquals(c.getString(enc), Polyflake.formatBytes(id).joinToString("") { "%02x".format(it) })
                    assertEquals(id, Polyflake.parseBytes(hex(c.getString(enc))))
                } else {
                    assertEquals(c.getString(enc), Polyflake.formatId(id, enc))
                    assertEquals(id, Polyflake.parseId(c.getString(enc), enc))
                }
            }
        }
        for (c in v.getJSONArray("parse_ok").objects()) {
            val got = if (c.getString("encoding") == "bytes") Polyflake.parseBytes(hex(c.getString("text"))) else Polyflake.parseId(c.getString("text"), c.getString("encoding"))
            assertEquals(Vectors.bits(c.getString("id")), got)
        }
        for (c in v.getJSONArray("parse_errors").objects()) {
            val e = assertThrows<InvalidEncodingException>(c.toString()) {
                if (c.getString("encoding") == "bytes") Polyflake.parseBytes(hex(c.getString("text"))) else Polyflake.parseId(c.getString("text"), c.getString("encoding"))
            }
            assertEquals(c.getString("error"), e.code)
        }
    }

    @Test
    fun `generator scenarios under a manual clock`() {
        for (s in Vectors.load("generator.json").getJSONArray("scenarios").objects()) {
            val name = s.getString("name")
            val clock = ManualClock(s.getString("start_ms").toLong())
            val policy = when (s.getString("policy")) {
                "fail" -> OnClockBackwards.Fail
                "wait" -> OnClockBackwards.Wait(s.getLong("max_wait_ms"))
                else -> OnClockBackwards.Logical
            }
            val nodes = Vectors.nodes(s.getJSONObject("nodes")).toList().toTypedArray()
            Generator(Vectors.layout(s.getString("layout")), *nodes, clock = clock, onClockBackwards = policy).use { g ->
                for (step in s.getJSONArray("steps").objects()) {
                    when (step.getString("op")) {
                        "set" -> clock.set(step.getString("ms").toLong())
                        "clock" -> assertEquals(step.getString("ms").toLong(), clock.nowMs, name)
                        "next_ids" -> {
                            val ids = step.getJSONArray("ids")
                            assertEquals((0 until ids.length()).map { Vectors.bits(ids.getString(it)) }, g.nextIds(ids.length()).toList(), name)
                        }
                        else -> if (step.has("id")) {
                            assertEquals(Vectors.bits(step.getString("id")), g.nextId(), name)
                        } else {
                            val e = assertThrows<PolyflakeException>(name) { g.nextId() }
                            assertEquals(step.getString("error"), e.code, name)
                        }
                    }
                }
            }
        }
    }

    private fun hex(text: String): ByteArray = ByteArray(text.length / 2) { text.substring(2 * it, 2 * it + 2).toInt(16).toByte() }
}
