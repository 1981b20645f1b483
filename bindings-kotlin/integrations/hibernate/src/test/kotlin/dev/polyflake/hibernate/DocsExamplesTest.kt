package dev.polyflake.hibernate

import com.fasterxml.jackson.databind.ObjectMapper
import dev.polyflake.Layout
import dev.polyflake.Polyflake
import dev.polyflake.jackson.JsonSnowflakeId
import dev.polyflake.jackson.PolyflakeModule
import jakarta.persistence.Entity
import jakarta.persistence.Id
import jakarta.persistence.Table
import org.hibernate.cfg.Configuration
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

// docs/integrations.md's Kotlin blocks, verbatim (scripts/readme_examples.py checks that each
// appears here), each followed by checks.

@Entity
@Table(name = "customers")
open class Customer {
    @Id @PolyflakeId open var id: Long? = null        // set by Hibernate before the INSERT
    @JsonSnowflakeId open var referrer: Long? = null  // an ID under a key the rule does not name
    open var name: String = ""
}

class DocsExamplesTest {
    @Test
    fun `the integrations page's JVM example`() {
        Postgres.start().use { pg ->
            val sessions = Configuration().addAnnotatedClass(Customer::class.java)
                .setProperty("hibernate.connection.url", pg.jdbcUrl)
                .setProperty("hibernate.hbm2ddl.auto", "create")
                .buildSessionFactory()
            sessions.use {
                val mapper = ObjectMapper().registerModule(PolyflakeModule())  // Spring Boot: a Module bean
                val customer = Customer().apply { name = "Ada" }
                sessions.inTransaction { it.persist(customer) }
                val json = mapper.writeValueAsString(customer)  // {"id":"2128…","referrer":null,"name":"Ada"}
                val back = mapper.readValue(json, Customer::class.java)

                // Customers made in the last hour, from the key alone.
                val now = System.currentTimeMillis()
                val recent = sessions.fromSession { s ->
                    s.createSelectionQuery("from Customer c where c.id between :lo and :hi", Customer::class.java)
                        .setParameter("lo", Polyflake.minId(Layout.TWITTER, now - 3_600_000))
                        .setParameter("hi", Polyflake.maxId(Layout.TWITTER, now))
                        .list()
                }

                // What the comments promise.
                val tree = ObjectMapper().readTree(json)
                assertTrue(tree["id"].isTextual, json)
                assertEquals(java.lang.Long.toUnsignedString(customer.id!!), tree["id"].asText())
                assertTrue(tree["referrer"].isNull)
                assertEquals(customer.id, back.id)
                assertEquals(listOf(customer.id), recent.map { it.id })
                val withReferrer = mapper.readTree(mapper.writeValueAsString(back.apply { referrer = -1L }))
                assertEquals("18446744073709551615", withReferrer["referrer"].asText())
            }
        }
    }
}
