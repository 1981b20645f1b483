package dev.polyflake

import dev.polyflake.ffi.FfiNodeValue
import java.time.Instant

/**
 * A decoded ID. [id] keeps the 64 bits in a `Long`: layouts that use bit 63
 * (`discord`, `instagram`, some custom ones) show such IDs as negative numbers.
 */
data class Parts(
    val id: Long,
    val layout: String,
    val timestampMs: Long,
    /** Node field values by contract name (`datacenter_id` …), most significant first. */
    val nodes: Map<String, Long>,
    val sequence: Long,
) {
    /** The start of the ID's tick. */
    val time: Instant get() = Instant.ofEpochMilli(timestampMs)

    /** A node field's value: `parts["machine_id"]`. */
    operator fun get(field: String): Long = nodes[field] ?: throw NoSuchElementException("layout $layout has no field $field")
}

/** One labelled run of an ID's bits. */
data class Segment(val name: String, val kind: String, val msb: Int, val lsb: Int, val width: Int, val value: Long, val bits: String)

/** compose, decode, explain, minId, maxId, format and parse. */
object Polyflake {
    @JvmStatic
    fun compose(layout: Layout, timestampMs: Long, sequence: Long, vararg nodes: Pair<String, Long>): Long =
        compose(layout, timestampMs, sequence, nodes.toMap())

    @JvmStatic
    fun compose(layout: Layout, timestampMs: Long, sequence: Long, nodes: Map<String, Long>): Long {
        val values = nodes.map { (name, value) -> FfiNodeValue(name, unsigned(name, value)) }
        val seq = unsigned("sequence", sequence)
        return mapped { dev.polyflake.ffi.compose(layout.ffi, timestampMs, seq, values).toLong() }
    }

    @JvmStatic
    fun decode(id: Long, layout: Layout): Parts {
        val names = layout.fieldNames
        val out = LongArray(2 + names.size)
        if (FastPath.polyflake_decode(layout.handle, id, out, out.size) == 0) {
            val nodes = LinkedHashMap<String, Long>(names.size * 2)
            names.forEachIndexed { i, name -> nodes[name] = out[2 + i] }
            return Parts(id, layout.name, out[0], nodes, out[1])
        }
        // Not an ID of this layout: the uniffi call reports why.
        return mapped {
            val parts = dev.polyflake.ffi.decode(layout.ffi, id.toULong())
            Parts(id, layout.name, parts.timestampMs, parts.nodes.associate { it.name to it.value.toLong() }, parts.sequence.toLong())
        }
    }

    @JvmStatic
    fun explain(id: Long, layout: Layout): List<Segment> = mapped {
        dev.polyflake.ffi.explain(layout.ffi, id.toULong()).map {
            Segment(it.name, it.kind, it.msb.toInt(), it.lsb.toInt(), it.width.toInt(), it.value.toLong(), it.bits)
        }
    }

    @JvmStatic
    fun minId(layout: Layout, timestampMs: Long): Long = mapped { dev.polyflake.ffi.minId(layout.ffi, timestampMs).toLong() }

    @JvmStatic
    fun maxId(layout: Layout, timestampMs: Long): Long = mapped { dev.polyflake.ffi.maxId(layout.ffi, timestampMs).toLong() }

    /** The encodings' names. */
    @JvmStatic
    val ENCODINGS: List<String> get() = dev.polyflake.ffi.encodingNames()

    /** Text in a text encoding (`decimal` is the unsigned value of the 64 bits). */
    @JvmStatic
    @JvmOverloads
    fun formatId(id: Long, encoding: String = "decimal"): String = mapped { dev.polyflake.ffi.formatId(id.toULong(), encoding) }

    @JvmStatic
    @JvmOverloads
    fun parseId(text: String, encoding: String = "decimal"): Long = mapped { dev.polyflake.ffi.parseId(text, encoding).toLong() }

    /** The 8 big-endian bytes. */
    @JvmStatic
    fun formatBytes(id: Long): ByteArray = dev.polyflake.ffi.formatBytes(id.toULong())

    @JvmStatic
    fun parseBytes(bytes: ByteArray): Long = mapped { dev.polyflake.ffi.parseBytes(bytes).toLong() }
}
