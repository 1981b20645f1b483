package dev.polyflake.hibernate

import org.hibernate.annotations.IdGeneratorType

/**
 * The primary key is a Snowflake ID from the process's generator for [layout]
 * ([ProcessGenerators]), assigned in Java before the INSERT: Hibernate batches inserts and
 * knows each key without a round trip, unlike an identity column or a sequence.
 *
 * ```kotlin
 * @Id @PolyflakeId var id: Long? = null
 * ```
 *
 * The attribute must be a `Long` (SQL `bigint`). [layout] is a preset's name; empty means the
 * setting `polyflake.layout` of the persistence unit, else `twitter`.
 */
@IdGeneratorType(PolyflakeIdGenerator::class)
@Target(AnnotationTarget.FIELD, AnnotationTarget.FUNCTION, AnnotationTarget.PROPERTY_GETTER)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
annotation class PolyflakeId(val layout: String = "")
