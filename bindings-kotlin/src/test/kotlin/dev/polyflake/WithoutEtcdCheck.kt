package dev.polyflake

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/**
 * Runs in its own failsafe execution against a library built without the
 * `etcd` feature (JNA finds it first through `jna.library.path`); the other
 * tests run against the jar's library, which has it.
 */
class WithoutEtcdCheck {
    private fun assertRefused(e: InvalidArgumentException) {
        assertEquals("INVALID_ARGUMENT", e.code)
        assertTrue(e.message!!.contains("built without the cargo feature `etcd`"), e.message)
        assertTrue(e.message!!.contains("--features etcd"), e.message)
    }

    @Test
    fun `a build without etcd refuses POLYFLAKE_ETCD_ENDPOINTS with the documented error`() {
        withEnv(mapOf("POLYFLAKE_ETCD_ENDPOINTS" to "http://127.0.0.1:1")) {
            assertRefused(assertThrows<InvalidArgumentException> { Generator.fromEnv(Layout.TWITTER) })
        }
    }

    @Test
    fun `a build without etcd refuses fromEtcd with the same error`() {
        assertRefused(assertThrows<InvalidArgumentException> { Generator.fromEtcd(Layout.TWITTER, listOf("http://127.0.0.1:1")) })
    }
}
