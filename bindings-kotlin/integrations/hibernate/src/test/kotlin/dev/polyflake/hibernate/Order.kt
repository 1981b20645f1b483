package dev.polyflake.hibernate

import dev.polyflake.jackson.JsonSnowflakeId
import jakarta.persistence.Entity
import jakarta.persistence.Id
import jakarta.persistence.Table

/** An entity as users declare it: the key from @PolyflakeId, a reference to another ID. */
@Entity
@Table(name = "orders")
open class Order() {
    @Id
    @PolyflakeId
    open var id: Long? = null

    @JsonSnowflakeId
    open var customerId: Long = 0

    open var item: String = ""

    constructor(customerId: Long, item: String) : this() {
        this.customerId = customerId
        this.item = item
    }
}

/** A key of another layout, named on the annotation. */
@Entity
@Table(name = "events")
open class Event() {
    @Id
    @PolyflakeId(layout = "sonyflake")
    open var id: Long? = null

    open var name: String = ""

    constructor(name: String) : this() {
        this.name = name
    }
}

/** A key that cannot hold an ID: refused when the mapping is built. */
@Entity
@Table(name = "wrong")
open class WrongKey {
    @Id
    @PolyflakeId
    open var id: String? = null
}
