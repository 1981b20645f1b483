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

/**
 * The node fields of one ID as a read-only map, each value read from the ID's
 * bits when asked for: a decode that reads only the time pays for no map.
 */
private class NodeFields(private val id: Long, private val layout: Layout) : AbstractMap<String, Long>() {
    private fun value(i: Int): Long = (id ushr layout.plan[6 + 2 * i].toInt()) and layout.plan[7 + 2 * i]

    override val size: Int get() = layout.fieldNames.size

    override fun get(key: String): Long? {
        val i = layout.fieldNames.indexOf(key)
        return if (i < 0) null else value(i)
    }

    override fun containsKey(key: String): Boolean = key in layout.fieldNames

    override val entries: Set<Map.Entry<String, Long>>
        get() = layout.fieldNames.mapIndexedTo(LinkedHashSet()) { i, name -> java.util.AbstractMap.SimpleImmutableEntry(name, value(i)) }
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
        val plan = layout.plan
        if (id and plan[0].inv() != 0L) {
            // Unused bits set: not an ID of this layout, and the core says why.
            return mapped {
                val parts = dev.polyflake.ffi.decode(layout.ffi, id.toULong())
                Parts(id, layout.name, parts.timestampMs, parts.nodes.associate { it.name to it.value.toLong() }, parts.sequence.toLong())
            }
        }
        // Long arithmetic wraps as the core's does, so an epoch before 1970 comes out the same.
        val timestampMs = plan[1] + (id ushr plan[3].toInt()) * plan[2]
        return Parts(id, layout.name, timestampMs, NodeFields(id, layout), (id ushr plan[4].toInt()) and plan[5])
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

    /**
     * Whether a JSON key holds IDs, by the contract's rule: `id`, `ids`, or a key ending in
     * `_id`, `_ids`, `Id`, `Ids`, `ID` or `IDs` (`customerId`, `orderIds`; not `paid`).
     */
    @JvmStatic
    fun isIdKey(key: String): Boolean = dev.polyflake.ffi.isIdKey(key)
}
