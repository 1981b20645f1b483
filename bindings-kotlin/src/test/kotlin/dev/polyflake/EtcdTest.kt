package dev.polyflake

import com.sun.jna.Library
import com.sun.jna.Native
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import java.net.ServerSocket
import java.net.URI
import java.nio.file.Files

/** `Generator.fromEnv` with POLYFLAKE_ETCD_ENDPOINTS against a real etcd
 *  (Debian's etcd-server), started here on 127.0.0.1 and stopped by PID. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EtcdTest {
    /** The JVM cannot change its own environment; the native core reads the C one. */
    private interface LibC : Library {
        fun setenv(name: String, value: String, overwrite: Int): Int
        fun unsetenv(name: String): Int
    }

    private val libc: LibC = Native.load("c", LibC::class.java)
    private lateinit var etcd: Process
    private lateinit var url: String
    private val dataDir = Files.createTempDirectory("polyflake-kotlin-etcd")

    private fun freePort(): Int = ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()).use { it.localPort }

    @BeforeAll
    fun startEtcd() {
        val client = freePort()
        val peer = freePort()
        url = "http://127.0.0.1:$client"
        val peerUrl = "http://127.0.0.1:$peer"
        etcd = ProcessBuilder(
            "etcd", "--name", "kt", "--data-dir", dataDir.toString(),
            "--listen-client-urls", url, "--advertise-client-urls", url,
            "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
            "--initial-cluster", "kt=$peerUrl",
        ).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start()
        // Listening is not serving: wait until the member has elected itself.
        val deadline = System.nanoTime() + 30_000_000_000L
        while (!healthy()) {
            assertTrue(System.nanoTime() < deadline, "etcd was not healthy within 30 s")
            Thread.sleep(50)
        }
    }

    private fun healthy(): Boolean = runCatching {
        val connection = URI("$url/health").toURL().openConnection()
        connection.connectTimeout = 2000
        connection.readTimeout = 2000
        connection.getInputStream().use { String(it.readBytes()) }.contains("\"health\":\"true\"")
    }.getOrDefault(false)

    @AfterAll
    fun stopEtcd() {
        ProcessBuilder("kill", "-KILL", etcd.pid().toString()).start().waitFor()
        etcd.waitFor()
        dataDir.toFile().deleteRecursively()
    }

    private fun <T> withEnv(vars: Map<String, String>, body: () -> T): T {
        vars.forEach { (k, v) -> libc.setenv(k, v, 1) }
        try {
            return body()
        } finally {
            vars.keys.forEach { libc.unsetenv(it) }
        }
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
        val port = freePort()
        withEnv(mapOf("POLYFLAKE_ETCD_ENDPOINTS" to "http://127.0.0.1:$port")) {
            val e = assertThrows<LeaseLostException> { Generator.fromEnv(Layout.TWITTER) }
            assertEquals("LEASE_LOST", e.code)
            assertTrue(e.message!!.contains("cannot reach etcd"), e.message)
        }
    }
}
