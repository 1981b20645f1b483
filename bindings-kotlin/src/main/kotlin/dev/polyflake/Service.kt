package dev.polyflake

import dev.polyflake.ffi.FfiServiceGenerator
import dev.polyflake.ffi.FfiServiceSettings
import java.time.Duration

/** Counts since a [ServiceGenerator] was made ([ServiceGenerator.stats]). */
data class ServiceStats(
    /** Batches fetched. */
    val batches: Long,
    /** Requests that failed, each followed by a try at the next replica. */
    val failovers: Long,
    /** Calls that found the buffer empty and waited for a refill. */
    val stalls: Long,
    /** The longest of those waits. */
    val longestStall: Duration,
    /** Calls that waited their whole deadline and threw. */
    val refused: Long,
)

/**
 * IDs from `polyflake serve` replicas ([Generator.fromService]): fetched in batches into a buffer
 * that a background thread refills before it runs out, moving to the next replica when one fails.
 * Thread-safe; each ID is handed out once. IDs of one batch increase; batches from two replicas
 * carry two identities, so the stream is unique but not sorted across batches. [close] it when
 * done: the refill stops and the buffer is dropped.
 */
class ServiceGenerator internal constructor(private val ffi: FfiServiceGenerator) : AutoCloseable {
    /** The next ID; waits for a refill only when the buffer is empty, at most the deadline. */
    fun nextId(): Long = call { ffi.nextId().toLong() }

    /** [n] IDs in one crossing, each batch's in its order. */
    fun nextIds(n: Int): LongArray {
        require(n >= 0) { "n must be >= 0, got $n" }
        return call { ffi.nextIds(n.toUInt()).toLongArray() }
    }

    /** Counts since the generator was made. */
    fun stats(): ServiceStats = ffi.stats().let {
        ServiceStats(
            it.batches.toLong(),
            it.failovers.toLong(),
            it.stalls.toLong(),
            Duration.ofNanos(it.longestStallUs.toLong() * 1000),
            it.refused.toLong(),
        )
    }

    /** IDs fetched and not yet handed out. */
    val buffered: Long get() = ffi.buffered().toLong()

    /** The replicas, in the order batches are asked of them. */
    val urls: List<String> get() = ffi.urls()

    /** IDs per request now: the refill adapts it to the rate, from the batch given up to `maxBatch`. */
    val batch: Int get() = ffi.batch().toInt()

    /** The refill starts when fewer IDs than this remain (it scales with the batch). */
    val lowWater: Int get() = ffi.lowWater().toInt()

    /**
     * Stops the refill and drops the buffer; later calls throw [IllegalStateException], whose
     * cause is the core's [LeaseLostException] with reason [LeaseLostReason.CLOSED].
     */
    override fun close() {
        ffi.giveUp()
    }

    /** A closed generator's error is Kotlin's idiom for a closed resource, as [Generator]'s. */
    private inline fun <T> call(block: () -> T): T = mappedOpen("ServiceGenerator", block)

    internal companion object {
        fun create(
            urls: List<String>,
            batch: Int?,
            lowWater: Int?,
            maxBatch: Int?,
            requestTimeout: Duration?,
            deadline: Duration?,
        ): ServiceGenerator {
            fun count(name: String, n: Int?) = n?.let { unsigned(name, it.toLong()).toUInt() }
            fun ms(name: String, d: Duration?) = d?.let { unsigned(name, it.toMillis()) }
            val settings = FfiServiceSettings(
                urls,
                count("batch", batch),
                count("lowWater", lowWater),
                count("maxBatch", maxBatch),
                ms("requestTimeout", requestTimeout),
                ms("deadline", deadline),
            )
            return ServiceGenerator(mapped { FfiServiceGenerator(settings) })
        }
    }
}
