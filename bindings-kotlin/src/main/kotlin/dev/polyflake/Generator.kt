package dev.polyflake

import com.sun.jna.JNIEnv
import com.sun.jna.Native
import dev.polyflake.ffi.FfiBackwards
import dev.polyflake.ffi.FfiClock
import dev.polyflake.ffi.FfiGenerator
import dev.polyflake.ffi.FfiIdentity
import dev.polyflake.ffi.FfiManualClock
import dev.polyflake.ffi.FfiNodeCheck
import dev.polyflake.ffi.FfiNodeValue
import dev.polyflake.ffi.FfiRegistrySettings
import java.lang.ref.Cleaner
import java.lang.ref.Reference
import java.time.Duration

/** Where a generator reads the time. */
sealed interface Clock {
    /** The OS monotonic clock anchored to wall time (the default). */
    object Monotonic : Clock

    /** System time, read on every call. */
    object Wall : Clock
}

/** A clock set by hand, for deterministic tests; waiting jumps it forward. */
class ManualClock(nowMs: Long) : Clock {
    internal val ffi = FfiManualClock(nowMs)
    val nowMs: Long get() = ffi.nowMs()
    fun set(nowMs: Long) = ffi.set(nowMs)
    fun advance(deltaMs: Long) = ffi.advance(deltaMs)
}

/** What a generator does when the clock goes backwards. */
sealed interface OnClockBackwards {
    object Fail : OnClockBackwards
    /** Waits for a clock up to [maxMs] behind (the core's default bound unless given), then refuses. */
    data class Wait(val maxMs: Long = DEFAULT_WAIT_MS) : OnClockBackwards
    object Logical : OnClockBackwards
}

/** Counts since a generator was built ([Generator.stats]); [lease] is null without a lease. */
data class GeneratorStats(
    /** Calls that found their tick's sequence spent and waited for the next. */
    val ceilingWaits: Long,
    /** Calls that waited for a clock behind the last tick (policy `Wait`). */
    val clockBackwardsWaited: Long,
    /** Calls refused with [ClockMovedBackwardsException]. */
    val clockBackwardsRefused: Long,
    /** IDs issued ahead of a clock that was behind (policy `Logical`). */
    val clockBackwardsRanAhead: Long,
    val lease: LeaseStats?,
) {
    internal companion object {
        fun from(s: dev.polyflake.ffi.FfiGeneratorStats) = GeneratorStats(
            s.ceilingWaits.toLong(),
            s.clockBackwardsWaited.toLong(),
            s.clockBackwardsRefused.toLong(),
            s.clockBackwardsRanAhead.toLong(),
            s.lease?.let { LeaseStats(it.renewals.toLong(), it.losses.toLong(), it.reacquisitions.toLong()) },
        )
    }
}

/** A lease's renewals, losses and re-acquisitions. */
data class LeaseStats(val renewals: Long, val losses: Long, val reacquisitions: Long)

/** JNA direct mapping of the hot calls (tens of ns, against several µs for a uniffi call). */
internal object FastPath {
    init {
        Native.register(FastPath::class.java, "polyflake_kotlin")
    }

    @JvmStatic external fun polyflake_next_id(handle: Long): Long

    @JvmStatic external fun polyflake_release(handle: Long)

    @JvmStatic external fun polyflake_next_ids(handle: Long, out: LongArray, n: Int): Int

    @JvmStatic external fun polyflake_register_jni(env: JNIEnv): Int
}

/**
 * The hottest call through JNI instead (ADR 0004): the library binds [nextId]
 * itself, through [FastPath], so no second copy of it is loaded. Where that is
 * refused, [bound] is false and callers stay on [FastPath].
 */
internal object JniPath {
    @JvmStatic external fun nextId(handle: Long): Long

    @JvmField val bound: Boolean = runCatching { FastPath.polyflake_register_jni(JNIEnv.CURRENT) == 0 }.getOrDefault(false)
}

private const val NO_ID = -1L

/** The core's default bound of [OnClockBackwards.Wait]. */
private val DEFAULT_WAIT_MS: Long = dev.polyflake.ffi.defaultWaitMs().toLong()

/** The core's largest batch: larger requests get its FIELD_OUT_OF_RANGE before anything is allocated. */
private val MAX_BATCH: Long = dev.polyflake.ffi.maxBatch().toLong()

/**
 * Issues IDs for one worker identity. Thread-safe; IDs strictly increase;
 * never the same ID twice. [close] it when done: it gives up the identity at
 * once, even while other threads are still calling.
 */
class Generator private constructor(private val ffi: FfiGenerator) : AutoCloseable {
    private val handle = ffi.fastHandle().toLong()

    init {
        // The handle is freed once nothing can call with it any more: when
        // this object is unreachable. No count is kept per call; closing is
        // the core's, which swaps its state word so that no ID follows it.
        CLEANER.register(this, Release(handle, ffi))
    }

    @JvmOverloads
    constructor(
        layout: Layout,
        vararg nodes: Pair<String, Long>,
        clock: Clock = Clock.Monotonic,
        onClockBackwards: OnClockBackwards = OnClockBackwards.Wait(),
    ) : this(create(layout, FfiIdentity.Given(nodes.map { (n, v) -> FfiNodeValue(n, unsigned(n, v)) }), clock, onClockBackwards))

    /** The next ID. */
    fun nextId(): Long {
        val id = if (JniPath.bound) JniPath.nextId(handle) else FastPath.polyflake_next_id(handle)
        // The handle is this object's: it must stay reachable until the call returns.
        Reference.reachabilityFence(this)
        return if (id != NO_ID) id else slow { ffi.nextIdAfterFastPath().toLong() }
    }

    /** [n] strictly increasing IDs in one crossing. */
    fun nextIds(n: Int): LongArray {
        require(n >= 0) { "n must be >= 0, got $n" }
        if (n > MAX_BATCH) return slow { ffi.nextIds(n.toUInt()).toLongArray() }
        val out = LongArray(n)
        val filled = n == 0 || FastPath.polyflake_next_ids(handle, out, n) == n
        Reference.reachabilityFence(this)
        return if (filled) out else slow { ffi.nextIdsAfterFastPath(n.toUInt()).toLongArray() }
    }

    /**
     * A call the fast path could not answer: the core's typed error; a closed generator's
     * is Kotlin's idiom for a closed resource, with the core's error as its cause.
     */
    private inline fun <T> slow(block: () -> T): T = mappedOpen("Generator", block)

    /** Counts since the generator was built: waits at the per-tick ceiling, clock events, the lease's. */
    fun stats(): GeneratorStats = GeneratorStats.from(ffi.stats())

    /** Where the worker identity came from. */
    val identitySource: String get() = ffi.identitySource()

    /** The worker identity by contract field name. */
    val nodeFields: Map<String, Long> get() = ffi.nodeValues().associate { it.name to it.value.toLong() }

    /**
     * Gives up the worker identity now; later calls throw [IllegalStateException], whose
     * cause is the core's [LeaseLostException] with reason [LeaseLostReason.CLOSED].
     */
    override fun close() {
        ffi.giveUp()
    }

    /** Frees the handle and the generated object; holds no reference to the [Generator]. */
    private class Release(private val handle: Long, private val ffi: FfiGenerator) : Runnable {
        override fun run() {
            FastPath.polyflake_release(handle)
            ffi.close()
        }
    }

    companion object {
        private val CLEANER: Cleaner = Cleaner.create()

        /** A generator whose identity follows the environment (docs/identity.md). */
        @JvmStatic
        @JvmOverloads
        fun fromEnv(
            layout: Layout,
            clock: Clock = Clock.Monotonic,
            onClockBackwards: OnClockBackwards = OnClockBackwards.Wait(),
            check: ((List<Long>) -> Boolean)? = null,
        ): Generator = Generator(create(layout, FfiIdentity.Environment, clock, onClockBackwards, check))

        /**
         * A generator whose identity is leased from etcd at [endpoints]; every other
         * setting defaults to the core's (prefix `/polyflake`, TTL 10 s, renewal every
         * 3 s, refusing 2 s before the lease could lapse, peers' clocks within 10 s; a zero
         * [maxClockGap] turns that check off). [nodeRange] limits the node numbers claimed.
         * Builds without the `etcd` feature throw [InvalidArgumentException].
         */
        @JvmStatic
        @JvmOverloads
        fun fromEtcd(
            layout: Layout,
            endpoints: List<String>,
            prefix: String? = null,
            ttl: Duration? = null,
            keepAlive: Duration? = null,
            safetyMargin: Duration? = null,
            requestTimeout: Duration? = null,
            maxClockGap: Duration? = null,
            nodeRange: LongRange? = null,
            clock: Clock = Clock.Monotonic,
            onClockBackwards: OnClockBackwards = OnClockBackwards.Wait(),
            check: ((List<Long>) -> Boolean)? = null,
        ): Generator {
            fun ms(name: String, d: Duration?) = d?.let { unsigned(name, it.toMillis()) }
            val settings = FfiRegistrySettings(
                endpoints,
                prefix,
                ms("ttl", ttl),
                ms("keepAlive", keepAlive),
                ms("safetyMargin", safetyMargin),
                ms("requestTimeout", requestTimeout),
                ms("maxClockGap", maxClockGap),
                nodeRange?.let { listOf(unsigned("nodeRange", it.first), unsigned("nodeRange", it.last) + 1uL) },
            )
            return Generator(create(layout, FfiIdentity.Etcd(settings), clock, onClockBackwards, check))
        }

        /**
         * A generator whose IDs come from `polyflake serve` replicas at [urls]
         * (`http://host:port`): fetched [batch] at a time (default 1000) into a buffer that a
         * background thread refills when fewer than [lowWater] remain (default half a batch),
         * doubling the batch up to [maxBatch] (default 16 × [batch]) while the buffer drains faster
         * than requests return, moving to the next replica on a refused connection, a timeout or a
         * 503. A call that
         * finds the buffer empty waits at most [deadline] (default 10 s), then throws
         * [LeaseLostException] with reason [LeaseLostReason.UNREACHABLE]; [requestTimeout]
         * bounds one request (default 1 s).
         */
        @JvmStatic
        @JvmOverloads
        fun fromService(
            urls: List<String>,
            batch: Int? = null,
            lowWater: Int? = null,
            maxBatch: Int? = null,
            requestTimeout: Duration? = null,
            deadline: Duration? = null,
        ): ServiceGenerator = ServiceGenerator.create(urls, batch, lowWater, maxBatch, requestTimeout, deadline)

        private fun create(
            layout: Layout,
            identity: FfiIdentity,
            clock: Clock,
            backwards: OnClockBackwards,
            check: ((List<Long>) -> Boolean)? = null,
        ): FfiGenerator {
            val ffiClock = when (clock) {
                Clock.Monotonic -> FfiClock.Monotonic
                Clock.Wall -> FfiClock.Wall
                is ManualClock -> FfiClock.Manual(clock.ffi)
            }
            val ffiBackwards = when (backwards) {
                OnClockBackwards.Fail -> FfiBackwards.Fail
                is OnClockBackwards.Wait -> FfiBackwards.Wait(unsigned("maxMs", backwards.maxMs))
                OnClockBackwards.Logical -> FfiBackwards.Logical
            }
            // The check runs on this thread (and on the one that takes up a new lease in
            // nextId); whatever it throws refuses with its message.
            val ffiCheck = check?.let { decide ->
                object : FfiNodeCheck {
                    override fun allow(nodes: List<ULong>): Boolean = decide(nodes.map { it.toLong() })
                }
            }
            return mapped { FfiGenerator(layout.ffi, identity, ffiClock, ffiBackwards, ffiCheck) }
        }
    }
}
