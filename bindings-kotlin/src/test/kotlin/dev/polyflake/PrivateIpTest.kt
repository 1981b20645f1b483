package dev.polyflake

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.nio.file.Files
import java.util.concurrent.TimeUnit

/** Run inside the namespace by [PrivateIpTest]: prints the sonyflake machine ID it got. */
object PrivateIpMain {
    @JvmStatic
    fun main(args: Array<String>) {
        Generator.fromEnv(Layout.SONYFLAKE).use { println(Polyflake.decode(it.nextId(), Layout.SONYFLAKE)["machine_id"]) }
    }
}

/** POLYFLAKE_NODE_ID=private-ip (needs root for `ip netns`, as CI has). */
class PrivateIpTest {
    private fun run(vararg command: String): String {
        val process = ProcessBuilder(*command).redirectErrorStream(true).start()
        val out = process.inputStream.bufferedReader().readText()
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "${command.toList()} timed out")
        assertEquals(0, process.exitValue(), "${command.toList()}: $out")
        return out
    }

    @Test
    fun theLowBitsOfAPrivateAddressInANamespace() {
        val ns = "polyflake-kt-${ProcessHandle.current().pid()}"
        run("ip", "netns", "add", ns)
        try {
            run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
            run("ip", "netns", "exec", ns, "ip", "addr", "add", "10.1.2.3/24", "dev", "lo")
            val java = ProcessHandle.current().info().command().get()
            val state = Files.createTempDirectory("polyflake-private-ip").toString()
            val out = run(
                "ip", "netns", "exec", ns, "env", "POLYFLAKE_NODE_ID=private-ip", "POLYFLAKE_STATE_DIR=$state",
                java, "-cp", System.getProperty("java.class.path"), "dev.polyflake.PrivateIpMain",
            )
            assertEquals("515", out.lines().last { it.isNotBlank() }.trim()) // 0x0203, the low 16 bits of 10.1.2.3
        } finally {
            run("ip", "netns", "del", ns)
        }
    }

    @Test
    fun refusedOnAHostWithoutOneNamingWhatItSaw() {
        val seen = run("ip", "-o", "-4", "addr", "show").lines().filter { it.isNotBlank() }
            .map { it.trim().split(Regex("\\s+"))[3].substringBefore('/') }
        val private = Regex("""^(10\.|192\.168\.|169\.254\.|172\.(1[6-9]|2\d|3[01])\.|100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.)""")
        assumeTrue(seen.none { private.containsMatchIn(it) }, "this host has a private address")
        val err = withEnv(mapOf("POLYFLAKE_NODE_ID" to "private-ip")) {
            assertThrows<InvalidArgumentException> { Generator.fromEnv(Layout.SONYFLAKE) }
        }
        assertEquals("INVALID_ARGUMENT", err.code)
        assertTrue(err.message!!.contains("no private IPv4 address") && err.message!!.contains(seen.last()), err.message)
    }
}
