package dev.polyflake

import dev.polyflake.ffi.FfiLayout
import dev.polyflake.ffi.FfiNodeField

/** A bit layout: one of the presets or a validated custom layout. */
class Layout internal constructor(internal val ffi: FfiLayout) {
    // A layout is immutable: read it across the FFI once, not on every property access.
    val name: String = ffi.name()
    val epochMs: Long = ffi.epochMs()
    val tickMs: Long = ffi.tickMs().toLong()
    val timeBits: Int = ffi.timeBits().toInt()
    val sequenceBits: Int = ffi.sequenceBits().toInt()
    val sequenceAboveNodes: Boolean = ffi.sequenceAboveNodes()
    val unusedBits: Int = ffi.unusedBits().toInt()
    val maxSequence: Long = ffi.maxSequence().toLong()
    val maxTimestampMs: Long = ffi.maxTimestampMs()

    /** Node fields, most significant first: name to width in bits. */
    val nodes: List<Pair<String, Int>> = ffi.nodes().map { it.name to it.bits.toInt() }

    /** Node field names, most significant first (decode's map keys). */
    val fieldNames: List<String> = nodes.map { it.first }

    /** Shifts and masks for [Polyflake.decode], placed by the core (ADR 0004). */
    internal val plan: LongArray = ffi.decodePlan().toLongArray()

    override fun equals(other: Any?): Boolean = other is Layout && ffi.sameAs(other.ffi)

    override fun hashCode(): Int = (nodes.hashCode() * 31 + epochMs.hashCode()) * 31 + timeBits

    override fun toString(): String = if (name == "custom") "Layout.custom($epochMs, $timeBits, $nodes, $sequenceBits)" else "Layout.${name.uppercase()}"

    companion object {
        @JvmField val TWITTER = preset("twitter")
        @JvmField val SNOWFLAKE = preset("snowflake")
        @JvmField val DISCORD = preset("discord")
        @JvmField val INSTAGRAM = preset("instagram")
        @JvmField val SONYFLAKE = preset("sonyflake")

        /** The preset names (Java: `Layout.getPRESETS()`). */
        @JvmStatic
        val PRESETS: List<String> get() = dev.polyflake.ffi.presetNames()

        @JvmStatic
        fun preset(name: String): Layout = mapped { Layout(FfiLayout.preset(name)) }

        @JvmStatic
        @JvmOverloads
        fun custom(
            epochMs: Long,
            timeBits: Int,
            nodes: List<Pair<String, Int>> = emptyList(),
            sequenceBits: Int = 12,
            tickMs: Long = 1,
            sequenceAboveNodes: Boolean = false,
        ): Layout {
            require(timeBits in 0..64) { "timeBits must be in 0..64, got $timeBits" }
            require(sequenceBits in 0..64) { "sequenceBits must be in 0..64, got $sequenceBits" }
            require(tickMs >= 0) { "tickMs must be >= 0, got $tickMs" }
            val fields = nodes.map { (name, bits) ->
                require(bits in 0..64) { "bits of node field $name must be in 0..64, got $bits" }
                FfiNodeField(name, bits.toUByte())
            }
            return mapped {
                Layout(FfiLayout.custom(epochMs, timeBits.toUByte(), fields, sequenceBits.toUByte(), tickMs.toULong(), sequenceAboveNodes))
            }
        }
    }
}
