package dev.polyflake

import dev.polyflake.ffi.FfiException

/** Every polyflake error, with the contract's stable [code]. */
sealed class PolyflakeException(val code: String, message: String) : RuntimeException(message)

/** A node field, the sequence or an ID outside `0..max` (never masked); [value] and [max] are unsigned 64-bit. */
class FieldOutOfRangeException(message: String, val field: String, val value: ULong, val max: ULong) :
    PolyflakeException("FIELD_OUT_OF_RANGE", message)

/** A timestamp earlier than the layout's epoch. */
class TimestampBeforeEpochException(message: String, val timestampMs: Long, val epochMs: Long) :
    PolyflakeException("TIMESTAMP_BEFORE_EPOCH", message)

/** A timestamp past the end of the layout's time field. */
class TimestampOverflowException(message: String, val timestampMs: Long, val maxTimestampMs: Long) :
    PolyflakeException("TIMESTAMP_OVERFLOW", message)

/** A custom layout that cannot exist, or an unknown preset. */
class InvalidLayoutException(message: String) : PolyflakeException("INVALID_LAYOUT", message)

/** Text that is not exactly a valid 64-bit ID in [encoding]. */
class InvalidEncodingException(message: String, val encoding: String) : PolyflakeException("INVALID_ENCODING", message)

/** The clock went back [behindMs] further than the generator's policy allows ([allowedMs]). */
class ClockMovedBackwardsException(message: String, val behindMs: Long, val allowedMs: Long) :
    PolyflakeException("CLOCK_MOVED_BACKWARDS", message)

/** Why a generator refuses to issue under its identity (the contract's reasons, from the core). */
typealias LeaseLostReason = dev.polyflake.ffi.LeaseLostReason

/** What kind of mistake an [InvalidArgumentException] is (from the core). */
typealias ArgumentKind = dev.polyflake.ffi.ArgumentKind

/**
 * The worker identity can no longer be trusted, for [reason]; [retryable]: whether waiting
 * and calling again can help without anyone acting (the core decides).
 */
class LeaseLostException(message: String, val reason: LeaseLostReason, val retryable: Boolean) :
    PolyflakeException("LEASE_LOST", message)

/** A mistake in the call or the configuration, of [kind]: an unknown name, a missing field … */
class InvalidArgumentException(message: String, val kind: ArgumentKind) : PolyflakeException("INVALID_ARGUMENT", message)

/** A lock or mark file of the state directory at [path] could not be read or written ([osError]: the OS's errno). */
class StateIoException(message: String, val path: String, val osError: Int?) : PolyflakeException("STATE_IO", message)

/**
 * The one mapping from the generated exception to the public hierarchy:
 * exhaustive over the core's variants, so a new one does not compile until mapped.
 */
internal fun FfiException.toPublic(): PolyflakeException =
    when (this) {
        is FfiException.FieldOutOfRange -> FieldOutOfRangeException(detail, field, value, max)
        is FfiException.TimestampBeforeEpoch -> TimestampBeforeEpochException(detail, timestampMs, epochMs)
        is FfiException.TimestampOverflow -> TimestampOverflowException(detail, timestampMs, maxTimestampMs)
        is FfiException.InvalidLayout -> InvalidLayoutException(detail)
        is FfiException.InvalidEncoding -> InvalidEncodingException(detail, encoding)
        is FfiException.ClockMovedBackwards -> ClockMovedBackwardsException(detail, behindMs.toLong(), allowedMs.toLong())
        is FfiException.LeaseLost -> LeaseLostException(detail, reason, retryable)
        is FfiException.InvalidArgument -> InvalidArgumentException(detail, kind)
        is FfiException.StateIo -> StateIoException(detail, path, osError)
    }

internal inline fun <T> mapped(block: () -> T): T =
    try {
        block()
    } catch (e: FfiException) {
        throw e.toPublic()
    }

/**
 * [mapped], with a closed generator's error as Kotlin's idiom for a closed resource:
 * [IllegalStateException] naming [what], the core's [LeaseLostException] as its cause.
 */
internal inline fun <T> mappedOpen(what: String, block: () -> T): T =
    try {
        mapped(block)
    } catch (e: LeaseLostException) {
        if (e.reason == LeaseLostReason.CLOSED) throw IllegalStateException("this $what is closed", e)
        throw e
    }

/** Node values and counts are unsigned; a negative `Long` is refused here, naming the argument. */
internal fun unsigned(name: String, value: Long): ULong {
    require(value >= 0) { "$name must be >= 0, got $value" }
    return value.toULong()
}
