package dev.polyflake.hibernate

import com.fasterxml.jackson.databind.ObjectMapper
import dev.polyflake.Generator
import dev.polyflake.Layout
import dev.polyflake.Polyflake
import dev.polyflake.jackson.PolyflakeModule
import org.hibernate.SessionFactory
import org.hibernate.cfg.Configuration
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test

/** @PolyflakeId against a real PostgreSQL through the PostgreSQL JDBC driver. */
class HibernateTest {
    companion object {
        private lateinit var pg: Postgres
        private lateinit var sessions: SessionFactory
        private val twitter = Layout.preset("twitter")

        private fun factory(vararg classes: Class<*>): SessionFactory {
            val config = Configuration()
            classes.forEach { config.addAnnotatedClass(it) }
            config.setProperty("hibernate.connection.url", pg.jdbcUrl)
            config.setProperty("hibernate.hbm2ddl.auto", "create")
            config.setProperty("hibernate.jdbc.batch_size", "100")
            config.setProperty("hibernate.order_inserts", "true")
            return config.buildSessionFactory()
        }

        @JvmStatic
        @BeforeAll
        fun start() {
            pg = Postgres.start()
            sessions = factory(Order::class.java, Event::class.java)
        }

        @JvmStatic
        @AfterAll
        fun stop() {
            if (::sessions.isInitialized) sessions.close()
            if (::pg.isInitialized) pg.close()
        }
    }

    private fun persist(vararg entities: Any) = sessions.inTransaction { s -> entities.forEach { s.persist(it) } }

    private fun idsInTable(table: String): List<Long> = sessions.fromSession { s ->
        s.createNativeQuery("select id from $table order by id", Long::class.javaObjectType).list()
    }

    @Test
    fun `keys come from the process generator and are read back with every bit`() {
        val orders = (1..3).map { Order(customerId = 42, item = "item $it") }
        persist(*orders.toTypedArray())
        val ids = orders.map { it.id!! }
        assertEquals(ids.sorted(), ids, "keys increase in the order the entities were persisted")
        assertEquals(3, ids.toSet().size)
        val nodes = ProcessGenerators.forLayout("twitter").nodeFields
        for (id in ids) {
            val parts = Polyflake.decode(id, twitter)
            assertEquals(nodes, parts.nodes.toMap(), "the key carries the process generator's identity")
            assertTrue(kotlin.math.abs(parts.timestampMs - System.currentTimeMillis()) < 60_000)
            // Above 2^53: a JSON number or a double would lose its low bits.
            assertTrue(id > (1L shl 53))
            val read = sessions.fromSession { s -> s.find(Order::class.java, id) }
            assertEquals(id, read.id)
        }
        assertTrue(idsInTable("orders").containsAll(ids), "the rows hold the very keys Java assigned")
    }

    @Test
    fun `twenty thousand rows in one batched transaction get twenty thousand keys`() {
        val orders = (1..20_000).map { Order(customerId = it.toLong(), item = "bulk") }
        sessions.inTransaction { s ->
            orders.forEachIndexed { i, o ->
                s.persist(o)
                if (i % 1000 == 999) {
                    s.flush()
                    s.clear()
                }
            }
        }
        val ids = orders.map { it.id!! }
        assertEquals(ids.sorted(), ids)
        assertEquals(20_000, ids.toSet().size)
        val (rows, distinct) = sessions.fromSession { s ->
            val row = s.createNativeQuery("select count(*), count(distinct id) from orders where item = 'bulk'", Array<Any>::class.java).singleResult
            (row[0] as Number).toLong() to (row[1] as Number).toLong()
        }
        assertEquals(20_000L, rows)
        assertEquals(20_000L, distinct)
    }

    @Test
    fun `JSON carries the key and the reference as strings, and reads them back exactly`() {
        val order = Order(customerId = -1L, item = "json") // 2^64 - 1 as an unsigned ID
        persist(order)
        val loaded = sessions.fromSession { s -> s.find(Order::class.java, order.id) }
        val mapper = ObjectMapper().registerModule(PolyflakeModule())
        val json = mapper.writeValueAsString(loaded)
        val tree = ObjectMapper().readTree(json)
        assertTrue(tree["id"].isTextual, "the key is a JSON string: $json")
        assertEquals(java.lang.Long.toUnsignedString(order.id!!), tree["id"].asText())
        assertTrue(tree["customerId"].isTextual)
        assertEquals("18446744073709551615", tree["customerId"].asText())
        val back = mapper.readValue(json, Order::class.java)
        assertEquals(order.id, back.id)
        assertEquals(-1L, back.customerId)
        // A client that sends the key as a number (exact in JSON text) is understood too.
        val asNumber = """{"id": ${java.lang.Long.toUnsignedString(order.id!!)}, "customerId": 7, "item": "x"}"""
        assertEquals(order.id, mapper.readValue(asNumber, Order::class.java).id)
    }

    @Test
    fun `a time range is a range of keys`() {
        val t0 = System.currentTimeMillis()
        val orders = (1..5).map { Order(customerId = 1, item = "range") }
        persist(*orders.toTypedArray())
        val t1 = System.currentTimeMillis()
        fun between(from: Long, until: Long): List<Long> = sessions.fromSession { s ->
            s.createSelectionQuery("select o.id from Order o where o.id between :lo and :hi and o.item = 'range'", Long::class.javaObjectType)
                .setParameter("lo", Polyflake.minId(twitter, from))
                .setParameter("hi", Polyflake.maxId(twitter, until))
                .list()
        }
        assertEquals(orders.map { it.id!! }.toSet(), between(t0, t1).toSet())
        assertEquals(emptyList<Long>(), between(t0 - 60_000, t0 - 1))
    }

    @Test
    fun `the layout named on the annotation`() {
        val event = Event("started")
        persist(event)
        val parts = Polyflake.decode(event.id!!, Layout.preset("sonyflake"))
        assertTrue(kotlin.math.abs(parts.timestampMs - System.currentTimeMillis()) < 60_000, "a sonyflake key: $parts")
        assertNotEquals(ProcessGenerators.forLayout("twitter"), ProcessGenerators.forLayout("sonyflake"))
        assertEquals(listOf(event.id!!), idsInTable("events"))
    }

    @Test
    fun `a key that cannot hold an ID is refused when the mapping is built`() {
        val e = assertThrows(Exception::class.java) { factory(WrongKey::class.java).close() }
        val messages = generateSequence<Throwable>(e) { it.cause }.mapNotNull { it.message }.toList()
        assertTrue(messages.any { "needs a Long" in it }, "refused for its type: $messages")
    }

    @Test
    fun `a second generator for a layout in use is refused`() {
        val mine = ProcessGenerators.forLayout("twitter")
        ProcessGenerators.use("twitter", mine) // the same one: fine
        Generator(Layout.preset("twitter"), "datacenter_id" to 1L, "machine_id" to 1L).use { other ->
            assertThrows(IllegalStateException::class.java) { ProcessGenerators.use("twitter", other) }
        }
        assertSame(mine, ProcessGenerators.forLayout("twitter"))
    }
}
