package dev.polyflake

import org.json.JSONObject
import java.net.InetAddress
import java.net.ServerSocket
import java.nio.file.Path
import java.util.concurrent.TimeUnit

/**
 * The suites' shared launchers (the Python scripts in the repository's tests/), as the Kotlin tests call
 * them: one way to start each kind of server in every language, each stopped by PID with its
 * directory removed by the same script's `stop`.
 */
object Launchers {
    private fun script(name: String): String =
        Path.of(System.getProperty("polyflake.root"), "tests", name).toString()

    /** `python3 tests/<name> args…`, its standard output (the launcher's JSON for `start`). */
    fun run(name: String, vararg args: String): String {
        val process = ProcessBuilder("python3", script(name), *args).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        val out = process.inputStream.bufferedReader().readText()
        check(process.waitFor(120, TimeUnit.SECONDS) && process.exitValue() == 0) { "$name ${args.first()} failed: $out" }
        return out
    }

    /** An etcd of the test's own: `dir`, `endpoints`, `members` (each `name`, `endpoint`, `pid`). */
    fun startEtcd(members: Int = 1): JSONObject = JSONObject(run("etcd_cluster.py", "start", "--members", members.toString()))

    fun stopEtcd(cluster: JSONObject) {
        run("etcd_cluster.py", "stop", cluster.getString("dir"))
    }

    /** A port of 127.0.0.1 nobody listens on now (the kernel's choice, released): an address that must refuse. */
    fun closedPort(): Int = ServerSocket(0, 1, InetAddress.getLoopbackAddress()).use { it.localPort }
}
