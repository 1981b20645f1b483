package dev.polyflake.jackson

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside
import com.fasterxml.jackson.databind.annotation.JsonDeserialize
import com.fasterxml.jackson.databind.annotation.JsonSerialize

/**
 * This `Long` property is a Snowflake ID: JSON carries it as a string and accepts a string or
 * a number. Works in any ObjectMapper, with or without [PolyflakeModule]:
 *
 * ```kotlin
 * @JsonSnowflakeId var customerId: Long = 0
 * ```
 *
 * For lists of IDs, or for every `Long`, register [PolyflakeModule.everyLong].
 */
@Target(
    AnnotationTarget.FIELD,
    AnnotationTarget.FUNCTION,
    AnnotationTarget.PROPERTY_GETTER,
    AnnotationTarget.PROPERTY_SETTER,
    AnnotationTarget.VALUE_PARAMETER,
    AnnotationTarget.ANNOTATION_CLASS,
)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
@JacksonAnnotationsInside
@JsonSerialize(using = SnowflakeIdSerializer::class)
@JsonDeserialize(using = SnowflakeIdDeserializer::class)
annotation class JsonSnowflakeId
