package dev.polyflake.hibernate

import java.nio.file.Path
import java.util.concurrent.TimeUnit

/**
 * A PostgreSQL 15 cluster of the test's own, started and stopped (by its PID) with the
 * repository's one helper, tests/postgres_cluster.py.
 */
class Postgres private constructor(val jdbcUrl: String, private val dir: String) : AutoCloseable {
    override fun close() {
        run("stop", dir)
    }

    companion object {
        private val script: Path = Path.of(System.getProperty("polyflake.root"), "tests", "postgres_cluster.py")

        private fun run(vararg args: String): String {
            val process = ProcessBuilder("python3", script.toString(), *args).redirectError(ProcessBuilder.Redirect.INHERIT).start()
            val out = process.inputStream.bufferedReader().readText()
            check(process.waitFor(120, TimeUnit.SECONDS) && process.exitValue() == 0) { "postgres_cluster.py ${args.first()} failed: $out" }
            return out
        }

        fun start(): Postgres {
            val out = run("start")
            // {"url": "postgresql://USER@HOST:PORT/DB", "dir": "..."}: two strings, read without a JSON library.
            fun field(name: String) = Regex("\"$name\": \"([^\"]*)\"").find(out)?.groupValues?.get(1) ?: error("no $name in $out")
            val url = Regex("postgresql://([^@]+)@([^/]+)/(.+)").matchEntire(field("url")) ?: error("unexpected url in $out")
            val (user, host, db) = url.destructured
            return Postgres("jdbc:postgresql://$host/$db?user=$user", field("dir"))
        }
    }
}
