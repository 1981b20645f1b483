package dev.polyflake.jackson

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.core.JsonParser
import com.fasterxml.jackson.core.JsonToken
import com.fasterxml.jackson.databind.DeserializationContext
import com.fasterxml.jackson.databind.SerializerProvider
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer
import com.fasterxml.jackson.databind.exc.InvalidFormatException
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer
import dev.polyflake.Polyflake
import dev.polyflake.PolyflakeException
import java.math.BigInteger

// An ID is 64 unsigned bits held in a Long (bit 63 makes it negative). In JSON it is the
// decimal string of the unsigned value, as every polyflake binding writes it: a JSON number
// above 2^53 loses its low bits in every browser.

/** Writes an ID as the JSON string of its unsigned decimal value. */
class SnowflakeIdSerializer : StdScalarSerializer<Long>(Long::class.javaObjectType) {
    override fun serialize(value: Long, gen: JsonGenerator, provider: SerializerProvider) {
        gen.writeString(java.lang.Long.toUnsignedString(value))
    }
}

/**
 * Reads an ID from a decimal string (the core's `decimal` encoding: digits only, at most
 * 2^64 - 1) or from a JSON integer in 0..2^64 - 1. Anything else (a sign, a fraction, an
 * exponent, other text, a boolean) fails with Jackson's [InvalidFormatException], whose
 * cause is the core's coded [PolyflakeException] where the core refused the text.
 */
class SnowflakeIdDeserializer : StdScalarDeserializer<Long>(Long::class.javaObjectType) {
    override fun deserialize(p: JsonParser, ctxt: DeserializationContext): Long =
        when (p.currentToken()) {
            JsonToken.VALUE_STRING -> {
                val text = p.text
                try {
                    Polyflake.parseId(text)
                } catch (e: PolyflakeException) {
                    throw InvalidFormatException(p, "not a Snowflake ID [${e.code}]: ${e.message}", text, Long::class.javaObjectType)
                        .apply { initCause(e) }
                }
            }
            JsonToken.VALUE_NUMBER_INT -> fromInteger(p, p.bigIntegerValue)
            else -> ctxt.handleUnexpectedToken(Long::class.javaObjectType, p) as Long
        }

    private fun fromInteger(p: JsonParser, value: BigInteger): Long {
        if (value.signum() < 0 || value.bitLength() > 64) {
            throw InvalidFormatException(p, "not a Snowflake ID: $value is outside 0..2^64-1", value, Long::class.javaObjectType)
        }
        // The low 64 bits: an ID at or above 2^63 is the Long with bit 63 set.
        return value.toLong()
    }
}
