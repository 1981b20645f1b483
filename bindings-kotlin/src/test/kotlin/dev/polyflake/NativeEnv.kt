package dev.polyflake

import com.sun.jna.Library
import com.sun.jna.Native

/** The JVM cannot change its own environment; the native core reads the C one. */
private interface LibC : Library {
    fun setenv(name: String, value: String, overwrite: Int): Int
    fun unsetenv(name: String): Int
}

private val libc: LibC = Native.load("c", LibC::class.java)

/** Runs [body] with [vars] set in the process environment, then puts back what was there. */
internal fun <T> withEnv(vars: Map<String, String>, body: () -> T): T {
    // The JVM's copy of the environment at start: what each variable goes back to.
    val before = vars.keys.associateWith { System.getenv(it) }
    vars.forEach { (k, v) -> libc.setenv(k, v, 1) }
    try {
        return body()
    } finally {
        before.forEach { (k, v) -> if (v == null) libc.unsetenv(k) else libc.setenv(k, v, 1) }
    }
}
