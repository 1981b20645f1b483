package dev.polyflake

import cn.hutool.core.lang.Snowflake
import com.github.f4b6a3.tsid.TsidFactory

// polyflake beside hutool and tsid-creator, in one run: `make bench-kotlin`.
// Prints the Kotlin section of docs/benchmarks.md.

private const val N = 2_000_000
private const val CEILING_NS = 1e6 / 4096

private fun time(fn: () -> Long): Double {
    var sink = 0L
    val start = System.nanoTime()
    for (i in 0 until N) sink = sink xor fn()
    val ns = (System.nanoTime() - start).toDouble() / N
    return if (sink == 42L) ns + 1e-9 else ns
}

private fun best(fn: () -> Long): Pair<Double, Int> {
    repeat(2) { time(fn) } // JIT warm-up
    val ns = minOf(time(fn), time(fn), time(fn))
    val ids = LongArray(N) { fn() }
    return ns to (N - ids.toHashSet().size)
}

fun main() {
    val rows = mutableListOf<List<String>>()
    fun row(what: String, ns: Double, ceiling: String = "", dupes: String = "") =
        rows.add(listOf(what, "%.0f".format(ns), ceiling, dupes))
    fun ceiling(ns: Double) = "%.1f%%".format(minOf(100.0, CEILING_NS / ns * 100))

    val wide = Generator(Layout.custom(1288834974657, 41, listOf("node_id" to 1), sequenceBits = 21), "node_id" to 1L)
    val (floorNs, _) = best { BenchFloor.polyflake_floor() }
    row("floor: a direct-mapped JNA call returning a long", floorNs)
    val (jniFloorNs, _) = best { JniFloor.floor() }
    row("floor: a JNI call returning a long (the crossing `nextId` takes)", jniFloorNs)
    val (wideNs, wideDupes) = best { wide.nextId() }
    row("polyflake `nextId()` (21-bit sequence, never waits)", wideNs, dupes = "$wideDupes")
    val snowflake = Generator(Layout.SNOWFLAKE, "node_id" to 1L)
    val (sfNs, sfDupes) = best { snowflake.nextId() }
    row("polyflake `nextId()` (`snowflake` preset)", sfNs, ceiling(sfNs), "$sfDupes")
    val start = System.nanoTime()
    val batch = wide.nextIds(N)
    row("polyflake `nextIds(2000000)`, per ID", (System.nanoTime() - start).toDouble() / N, dupes = "${N - batch.toHashSet().size}")

    val hutool = Snowflake(1, 1)
    val (hNs, hDupes) = best { hutool.nextId() }
    row("hutool `Snowflake.nextId()` (ratio %.1f× polyflake)".format(hNs / wideNs), hNs, ceiling(hNs), "$hDupes")
    val tsid = TsidFactory.builder().withNode(1).build()
    val (tNs, tDupes) = best { tsid.create().toLong() }
    row("tsid-creator `TsidFactory.create()` (ratio %.1f× polyflake)".format(tNs / wideNs), tNs, "n/a (random start)", "$tDupes")

    val id = snowflake.nextId()
    val (dNs, _) = best { Polyflake.decode(id, Layout.SNOWFLAKE).timestampMs }
    row("polyflake `decode(id, SNOWFLAKE).timestampMs` (%.2f× a JNI call)".format(dNs / jniFloorNs), dNs)
    val (dnNs, _) = best { Polyflake.decode(id, Layout.SNOWFLAKE)["node_id"] }
    row("polyflake `decode(id, SNOWFLAKE)[\"node_id\"]` (%.2f× a JNI call)".format(dnNs / jniFloorNs), dnNs)
    val (hdNs, _) = best { hutool.getGenerateDateTime(id) }
    row("hutool `getGenerateDateTime` (ratio %.2f×)".format(hdNs / dNs), hdNs)

    println("## Kotlin / JVM\n")
    println(
        "`make bench-kotlin`: ${System.getProperty("java.vm.name")} ${System.getProperty("java.version")}, the packaged jar, " +
            "plain loops of ${"%,d".format(N)} calls after warm-up (best of 3; duplicates counted in a separate loop that keeps the IDs). " +
            "Ratios are peer ÷ polyflake; the ceiling column is IDs per ms ÷ 4,096.\n",
    )
    println("| what | ns per call | of the ceiling | duplicates |\n|---|---|---|---|")
    rows.forEach { println("| ${it.joinToString(" | ")} |") }
}

/** The floor of a direct-mapped call (the library is built with `test-hooks` for benchmarks). */
internal object BenchFloor {
    init {
        com.sun.jna.Native.register(BenchFloor::class.java, "polyflake_kotlin")
    }

    @JvmStatic external fun polyflake_floor(): Long

    @JvmStatic external fun polyflake_register_jni_floor(env: com.sun.jna.JNIEnv): Int
}

/** The floor of a JNI call, bound by the library as `JniPath` is. */
internal object JniFloor {
    @JvmStatic external fun floor(): Long

    init {
        check(BenchFloor.polyflake_register_jni_floor(com.sun.jna.JNIEnv.CURRENT) == 0)
    }
}
