package dev.polyflake.hibernate

import dev.polyflake.Generator
import org.hibernate.MappingException
import org.hibernate.engine.config.spi.ConfigurationService
import org.hibernate.engine.spi.SharedSessionContractImplementor
import org.hibernate.generator.AnnotationBasedGenerator
import org.hibernate.generator.BeforeExecutionGenerator
import org.hibernate.generator.EventType
import org.hibernate.generator.EventTypeSets
import org.hibernate.generator.GeneratorCreationContext
import java.lang.reflect.Field
import java.lang.reflect.Member
import java.lang.reflect.Method
import java.util.EnumSet

/**
 * The generator behind [PolyflakeId]: one per annotated attribute, all of them drawing from
 * the process's one generator of their layout. Hibernate calls [generate] once per persisted
 * entity, before its INSERT. It is made with no arguments and then [initialize]d, the one way
 * Hibernate 6.2 to 7 all make an annotation's generator (their constructor signatures differ).
 */
class PolyflakeIdGenerator : BeforeExecutionGenerator, AnnotationBasedGenerator<PolyflakeId> {
    private lateinit var generator: Generator

    override fun initialize(config: PolyflakeId, member: Member, context: GeneratorCreationContext) {
        val type = when (member) {
            is Field -> member.type
            is Method -> member.returnType
            else -> null
        }
        if (type != Long::class.javaObjectType && type != Long::class.javaPrimitiveType) {
            throw MappingException(
                "@PolyflakeId on ${member.declaringClass.name}.${member.name}: a Snowflake ID needs a Long " +
                    "(SQL bigint) attribute, not ${type?.name ?: "this member"}",
            )
        }
        val layout = config.layout.ifEmpty {
            val settings = context.serviceRegistry.requireService(ConfigurationService::class.java).settings
            (settings[LAYOUT_SETTING] as? String)?.ifEmpty { null } ?: DEFAULT_LAYOUT
        }
        generator = ProcessGenerators.forLayout(layout)
    }

    override fun generate(
        session: SharedSessionContractImplementor,
        owner: Any?,
        currentValue: Any?,
        eventType: EventType,
    ): Any = generator.nextId()

    override fun getEventTypes(): EnumSet<EventType> = EventTypeSets.INSERT_ONLY

    companion object {
        /** The persistence unit's setting naming the layout of unnamed `@PolyflakeId` keys. */
        const val LAYOUT_SETTING = "polyflake.layout"
        const val DEFAULT_LAYOUT = "twitter"
    }
}
