package dev.polyflake

import org.json.JSONObject
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows

/** `Generator.fromEnv` with POLYFLAKE_ETCD_ENDPOINTS against a real etcd
 *  (Debian's etcd-server), from the suites' shared launcher and stopped by PID. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EtcdTest {
    private lateinit var etcd: JSONObject
    private lateinit var url: String

    @BeforeAll
    fun startEtcd() {
        etcd = Launchers.startEtcd()
        url = etcd.getString("endpoints")
    }

    @AfterAll
    fun stopEtcd() {
        if (::etcd.isInitialized) Launchers.stopEtcd(etcd)
    }

    @Test
    fun `fromEnv leases distinct identities from etcd`() {
        withEnv(mapOf("POLYFLAKE_ETCD_ENDPOINTS" to url, "POLYFLAKE_ETCD_PREFIX" to "/kt")) {
            Generator.fromEnv(Layout.TWITTER).use { a ->
                Generator.fromEnv(Layout.TWITTER).use { b ->
                    assertTrue(a.identitySource.startsWith("etcd lease on node"), a.identitySource)
                    assertTrue(a.identitySource.contains("/kt/twitter/workers/"), a.identitySource)
                    assertNotEquals(a.nodeFields, b.nodeFields)
                    val ids = a.nextIds(1000).toList() + b.nextIds(1000).toList()
                    assertEquals(2000, ids.toSet().size)
                }
            }
        }
    }

    @Test
    fun `an unreachable etcd is a LeaseLostException`() {
        val port = Launchers.closedPort()
        withEnv(mapOf("POLYFLAKE_ETCD_ENDPOINTS" to "http://127.0.0.1:$port")) {
            val e = assertThrows<LeaseLostException> { Generator.fromEnv(Layout.TWITTER) }
            assertEquals("LEASE_LOST", e.code)
            assertTrue(e.message!!.contains("cannot reach etcd"), e.message)
            assertEquals(LeaseLostReason.UNREACHABLE to true, e.reason to e.retryable)
        }
    }

    @Test
    fun `fromEtcd takes the etcd settings`() {
        Generator.fromEtcd(Layout.TWITTER, listOf(url), prefix = "/kt-from-etcd", nodeRange = 5L..6L, ttl = java.time.Duration.ofSeconds(4), keepAlive = java.time.Duration.ofSeconds(1), safetyMargin = java.time.Duration.ofSeconds(1), requestTimeout = java.time.Duration.ofSeconds(1)).use { a ->
            Generator.fromEtcd(Layout.TWITTER, listOf(url), prefix = "/kt-from-etcd", nodeRange = 5L..6L).use { b ->
                assertTrue(a.identitySource.contains("on node 5 "), a.identitySource)
                assertTrue(b.identitySource.contains("on node 6 "), b.identitySource)
                val e = assertThrows<LeaseLostException> { Generator.fromEtcd(Layout.TWITTER, listOf(url), prefix = "/kt-from-etcd", nodeRange = 5L..6L) }
                assertTrue(e.message!!.contains("every one of the 2 node values"), e.message)
                assertEquals(LeaseLostReason.EXHAUSTED, e.reason)
                val lease = a.stats().lease!!
                assertEquals(0L to 0L, lease.losses to lease.reacquisitions)
            }
        }
        // Zero turns the peers' clock check off: taken, and a lease is held.
        Generator.fromEtcd(Layout.TWITTER, listOf(url), prefix = "/kt-gap", maxClockGap = java.time.Duration.ZERO).use { unchecked ->
            assertTrue(unchecked.identitySource.startsWith("etcd lease on node"), unchecked.identitySource)
        }
        val e = assertThrows<InvalidArgumentException> { Generator.fromEtcd(Layout.TWITTER, listOf(url), ttl = java.time.Duration.ofMillis(2500)) }
        assertTrue(e.message!!.contains("whole seconds"), e.message)
    }

    @Test
    fun `a check that refuses value 0 leads to value 1, and a throwing check is an exception`() {
        val seen = mutableListOf<List<Long>>()
        Generator.fromEtcd(Layout.TWITTER, listOf(url), prefix = "/kt-check", nodeRange = 0L..2L, check = { nodes ->
            seen.add(nodes)
            nodes != listOf(0L, 0L)
        }).use { g ->
            assertEquals(mapOf("datacenter_id" to 0L, "machine_id" to 1L), g.nodeFields)
            assertEquals(listOf(listOf(0L, 0L), listOf(0L, 1L)), seen)
            // The refused value was released at once.
            Generator.fromEtcd(Layout.TWITTER, listOf(url), prefix = "/kt-check", nodeRange = 0L..2L).use { plain ->
                assertEquals(mapOf("datacenter_id" to 0L, "machine_id" to 0L), plain.nodeFields)
            }
            assertTrue(g.nextId() > 0)
        }
        val err = assertThrows<InvalidArgumentException> {
            Generator.fromEtcd(Layout.TWITTER, listOf(url), prefix = "/kt-check", check = { throw IllegalStateException("registry down") })
        }
        assertEquals("INVALID_ARGUMENT", err.code)
        assertTrue(err.message!!.contains("registry down"), err.message)
        assertEquals(ArgumentKind.NODE_CHECK, err.kind)
        // Every value of the range refused: the lease has none left to offer.
        val refused = assertThrows<LeaseLostException> {
            Generator.fromEtcd(Layout.TWITTER, listOf(url), prefix = "/kt-refuse-all", nodeRange = 0L..1L, check = { false })
        }
        assertEquals(LeaseLostReason.CHECK_REFUSED to false, refused.reason to refused.retryable)
    }
}
