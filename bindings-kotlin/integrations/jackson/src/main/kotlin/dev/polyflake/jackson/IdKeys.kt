package dev.polyflake.jackson

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.core.JsonParser
import com.fasterxml.jackson.core.JsonToken
import com.fasterxml.jackson.databind.BeanDescription
import com.fasterxml.jackson.databind.DeserializationConfig
import com.fasterxml.jackson.databind.DeserializationContext
import com.fasterxml.jackson.databind.JavaType
import com.fasterxml.jackson.databind.JsonDeserializer
import com.fasterxml.jackson.databind.JsonSerializer
import com.fasterxml.jackson.databind.SerializationConfig
import com.fasterxml.jackson.databind.SerializerProvider
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier
import com.fasterxml.jackson.databind.deser.std.StdDeserializer
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier
import com.fasterxml.jackson.databind.ser.std.StdSerializer
import dev.polyflake.Polyflake

// The contract's rule for plain 64-bit integers (docs/contract.md, JSON): the Longs under an
// ID key (Polyflake.isIdKey: id, ids, customerId, order_ids...) are IDs, alone or in lists.
// Applied to the properties Jackson reads through fields and setters and writes through
// fields and getters; a constructor's (creator's) parameters take @JsonSnowflakeId.

private fun isLong(type: JavaType) = type.rawClass == Long::class.javaObjectType || type.rawClass == Long::class.javaPrimitiveType

/** The serializer of an ID-key property of [type], or null when its type holds no IDs. */
@Suppress("UNCHECKED_CAST")
private fun idSerializer(type: JavaType): JsonSerializer<Any>? = when {
    isLong(type) -> SnowflakeIdSerializer() as JsonSerializer<Any>
    type.rawClass == LongArray::class.java -> IdArraySerializer as JsonSerializer<Any>
    type.isCollectionLikeType && isLong(type.contentType) -> IdCollectionSerializer as JsonSerializer<Any>
    else -> null
}

@Suppress("UNCHECKED_CAST")
private fun idDeserializer(type: JavaType): JsonDeserializer<Any>? = when {
    isLong(type) -> SnowflakeIdDeserializer() as JsonDeserializer<Any>
    type.rawClass == LongArray::class.java -> IdArrayDeserializer as JsonDeserializer<Any>
    type.isCollectionLikeType && isLong(type.contentType) && type.rawClass.isAssignableFrom(ArrayList::class.java) ->
        IdCollectionDeserializer(ids = { ArrayList() }) as JsonDeserializer<Any>
    type.isCollectionLikeType && isLong(type.contentType) && type.rawClass.isAssignableFrom(LinkedHashSet::class.java) ->
        IdCollectionDeserializer(ids = { LinkedHashSet() }) as JsonDeserializer<Any>
    else -> null
}

internal object IdKeySerializers : BeanSerializerModifier() {
    private fun readResolve(): Any = IdKeySerializers

    override fun changeProperties(
        config: SerializationConfig,
        beanDesc: BeanDescription,
        beanProperties: MutableList<BeanPropertyWriter>,
    ): MutableList<BeanPropertyWriter> {
        for (writer in beanProperties) {
            // An explicit serializer (@JsonSerialize, @JsonSnowflakeId) stays.
            if (writer.hasSerializer() || !Polyflake.isIdKey(writer.name)) continue
            idSerializer(writer.type)?.let { writer.assignSerializer(it) }
        }
        return beanProperties
    }
}

internal object IdKeyDeserializers : BeanDeserializerModifier() {
    private fun readResolve(): Any = IdKeyDeserializers

    override fun updateBuilder(
        config: DeserializationConfig,
        beanDesc: BeanDescription,
        builder: BeanDeserializerBuilder,
    ): BeanDeserializerBuilder {
        for (property in builder.properties.asSequence().toList()) {
            if (property.hasValueDeserializer() || !Polyflake.isIdKey(property.name)) continue
            idDeserializer(property.type)?.let { builder.addOrReplaceProperty(property.withValueDeserializer(it), true) }
        }
        return builder
    }
}

private val ID = SnowflakeIdSerializer()
private val READ_ID = SnowflakeIdDeserializer()

internal object IdCollectionSerializer : StdSerializer<Collection<Long?>>(Collection::class.java, false) {
    private fun readResolve(): Any = IdCollectionSerializer

    override fun serialize(value: Collection<Long?>, gen: JsonGenerator, provider: SerializerProvider) {
        gen.writeStartArray(value, value.size)
        for (id in value) if (id == null) gen.writeNull() else ID.serialize(id, gen, provider)
        gen.writeEndArray()
    }
}

internal object IdArraySerializer : StdSerializer<LongArray>(LongArray::class.java) {
    private fun readResolve(): Any = IdArraySerializer

    override fun serialize(value: LongArray, gen: JsonGenerator, provider: SerializerProvider) {
        gen.writeStartArray(value, value.size)
        for (id in value) ID.serialize(id, gen, provider)
        gen.writeEndArray()
    }
}

/** An array of IDs: each a string or a JSON integer, as [SnowflakeIdDeserializer] reads one. */
private fun readIds(p: JsonParser, ctxt: DeserializationContext, type: Class<*>): List<Long?> {
    if (!p.isExpectedStartArrayToken) return listOf(ctxt.handleUnexpectedToken(type, p) as Long?)
    val ids = ArrayList<Long?>()
    while (p.nextToken() != JsonToken.END_ARRAY) {
        ids.add(if (p.currentToken() == JsonToken.VALUE_NULL) null else READ_ID.deserialize(p, ctxt))
    }
    return ids
}

internal class IdCollectionDeserializer(private val ids: () -> MutableCollection<Long?>) :
    StdDeserializer<Collection<Long?>>(Collection::class.java) {
    override fun deserialize(p: JsonParser, ctxt: DeserializationContext): Collection<Long?> =
        ids().apply { addAll(readIds(p, ctxt, Collection::class.java)) }
}

internal object IdArrayDeserializer : StdDeserializer<LongArray>(LongArray::class.java) {
    private fun readResolve(): Any = IdArrayDeserializer

    override fun deserialize(p: JsonParser, ctxt: DeserializationContext): LongArray {
        val ids = readIds(p, ctxt, LongArray::class.java)
        return LongArray(ids.size) { i -> ids[i] ?: (ctxt.handleUnexpectedToken(LongArray::class.java, p) as Long) }
    }
}
