package dev.polyflake

import dev.polyflake.ffi.FfiException

/** Every polyflake error, with the contract's stable [code]. */
sealed class PolyflakeException(val code: String, message: String) : RuntimeException(message)

/** A node field, the sequence or an ID outside `0..max` (never masked). */
class FieldOutOfRangeException(message: String) : PolyflakeException("FIELD_OUT_OF_RANGE", message)

/** A timestamp earlier than the layout's epoch. */
class TimestampBeforeEpochException(message: String) : PolyflakeException("TIMESTAMP_BEFORE_EPOCH", message)

/** A timestamp past the end of the layout's time field. */
class TimestampOverflowException(message: String) : PolyflakeException("TIMESTAMP_OVERFLOW", message)

/** A custom layout that cannot exist, or an unknown preset. */
class InvalidLayoutException(message: String) : PolyflakeException("INVALID_LAYOUT", message)

/** Text that is not exactly a valid 64-bit ID in that encoding. */
class InvalidEncodingException(message: String) : PolyflakeException("INVALID_ENCODING", message)

/** The clock went back further than the generator's policy allows. */
class ClockMovedBackwardsException(message: String) : PolyflakeException("CLOCK_MOVED_BACKWARDS", message)

/** The worker identity can no longer be trusted. */
class LeaseLostException(message: String) : PolyflakeException("LEASE_LOST", message)

/** An unknown or missing node field, or an unknown encoding name. */
class InvalidArgumentException(message: String) : PolyflakeException("INVALID_ARGUMENT", message)

/** The one mapping from the generated exception to the public hierarchy. */
internal fun FfiException.toPublic(): PolyflakeException {
    val failed = this as FfiException.Failed
    val message = failed.detail
    return when (failed.code) {
        "FIELD_OUT_OF_RANGE" -> FieldOutOfRangeException(message)
        "TIMESTAMP_BEFORE_EPOCH" -> TimestampBeforeEpochException(message)
        "TIMESTAMP_OVERFLOW" -> TimestampOverflowException(message)
        "INVALID_LAYOUT" -> InvalidLayoutException(message)
        "INVALID_ENCODING" -> InvalidEncodingException(message)
        "CLOCK_MOVED_BACKWARDS" -> ClockMovedBackwardsException(message)
        "LEASE_LOST" -> LeaseLostException(message)
        else -> InvalidArgumentException(message)
    }
}

internal inline fun <T> mapped(block: () -> T): T =
    try {
        block()
    } catch (e: FfiException) {
        throw e.toPublic()
    }

/** Node values and counts are unsigned; a negative `Long` is refused here, naming the argument. */
internal fun unsigned(name: String, value: Long): ULong {
    require(value >= 0) { "$name must be >= 0, got $value" }
    return value.toULong()
}
