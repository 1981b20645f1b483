package dev.polyflake.jackson

import com.fasterxml.jackson.databind.introspect.Annotated
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector
import com.fasterxml.jackson.databind.module.SimpleModule

/**
 * Snowflake IDs as JSON strings, registered once on the application's ObjectMapper
 * (`mapper.registerModule(PolyflakeModule())`; Spring Boot picks up a `Module` bean). These
 * are written as strings and read from strings or JSON integers:
 * - a property annotated `@PolyflakeId` (polyflake-hibernate's key, found by name, so this
 *   module does not depend on Hibernate) or [JsonSnowflakeId];
 * - by the contract's rule for plain integers, the `Long`s, lists of `Long` and `LongArray`s
 *   under an ID key ([dev.polyflake.Polyflake.isIdKey]: `id`, `customerId`, `orderIds`...),
 *   as Python's `polyflake.dumps` writes them (read through fields and setters; a
 *   constructor's parameters take [JsonSnowflakeId]);
 * - with [everyLong], every `Long` and `long` the mapper sees (the habit of many Snowflake
 *   shops: no 64-bit number ever reaches a browser).
 */
class PolyflakeModule private constructor(val everyLong: Boolean) : SimpleModule("polyflake") {
    /** Only the annotated properties. */
    constructor() : this(false)

    init {
        setSerializerModifier(IdKeySerializers)
        setDeserializerModifier(IdKeyDeserializers)
        if (everyLong) {
            for (type in listOf(Long::class.javaObjectType, Long::class.javaPrimitiveType!!)) {
                addSerializer(type, SnowflakeIdSerializer())
                addDeserializer(type, SnowflakeIdDeserializer())
            }
        }
    }

    override fun setupModule(context: SetupContext) {
        super.setupModule(context)
        context.insertAnnotationIntrospector(KeyIntrospector)
    }

    /** Finds polyflake-hibernate's `@PolyflakeId` on a property, when that module is present. */
    private object KeyIntrospector : NopAnnotationIntrospector() {
        private val key: Class<out Annotation>? = try {
            @Suppress("UNCHECKED_CAST")
            Class.forName("dev.polyflake.hibernate.PolyflakeId") as Class<out Annotation>
        } catch (_: ClassNotFoundException) {
            null
        }

        private fun isKey(a: Annotated) = key != null && a.hasAnnotation(key)

        override fun findSerializer(a: Annotated): Any? = if (isKey(a)) SnowflakeIdSerializer::class.java else null

        override fun findDeserializer(a: Annotated): Any? = if (isKey(a)) SnowflakeIdDeserializer::class.java else null

        private fun readResolve(): Any = KeyIntrospector
    }

    companion object {
        /** Every `Long` and `long` as an ID. */
        @JvmStatic
        fun everyLong(): PolyflakeModule = PolyflakeModule(true)
    }
}
