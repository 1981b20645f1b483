//! A worker identity from the host's private IPv4 address
//! (`POLYFLAKE_NODE_ID=private-ip`), as Sonyflake's default machine ID: the
//! low node bits of the address, distinct across hosts of one private
//! network as long as the layout's node bits fit inside its host part.

use std::net::Ipv4Addr;

use super::nodes::split_node_number;
use crate::error::{ArgumentKind, Error, Result};
use crate::id::layout::Layout;

/// The value of `POLYFLAKE_NODE_ID` that asks for this identity.
pub const PRIVATE_IP: &str = "private-ip";

/// The ranges whose addresses count as private: RFC 1918, the shared address
/// space of carrier-grade NAT (RFC 6598, what some pod networks use) and
/// link-local (RFC 3927).
pub const PRIVATE_RANGES: [(Ipv4Addr, u8); 5] = [
    (Ipv4Addr::new(10, 0, 0, 0), 8),
    (Ipv4Addr::new(172, 16, 0, 0), 12),
    (Ipv4Addr::new(192, 168, 0, 0), 16),
    (Ipv4Addr::new(100, 64, 0, 0), 10),
    (Ipv4Addr::new(169, 254, 0, 0), 16),
];

/// The private range holding `address`, if any.
pub fn private_range(address: Ipv4Addr) -> Option<(Ipv4Addr, u8)> {
    PRIVATE_RANGES.iter().copied().find(|&(net, len)| {
        let mask = u32::MAX << (32 - u32::from(len));
        u32::from(address) & mask == u32::from(net)
    })
}

/// The node values for `layout` from the first private address of
/// `addresses` (interface name, address; in the system's interface order).
/// Refused, naming what was seen, when there is none or when the layout has
/// more node bits than the address's range leaves for hosts.
pub fn nodes_from_private_ipv4(
    layout: &Layout,
    addresses: &[(String, Ipv4Addr)],
) -> Result<(Vec<u64>, String)> {
    let variable = format!("{}={PRIVATE_IP}", super::variables::ENV_NODE_ID);
    let Some((interface, address, (net, len))) = addresses
        .iter()
        .find_map(|(i, a)| private_range(*a).map(|r| (i, *a, r)))
    else {
        let seen = if addresses.is_empty() {
            "no IPv4 address at all".to_owned()
        } else {
            let list: Vec<String> = addresses
                .iter()
                .map(|(i, a)| format!("{a} on {i}"))
                .collect();
            format!("only {}", list.join(", "))
        };
        return Err(Error::invalid(ArgumentKind::Configuration, format!(
            "{variable}: this host has no private IPv4 address (10/8, 172.16/12, 192.168/16, 100.64/10, 169.254/16), {seen}; set {} to a number instead",
            super::variables::ENV_NODE_ID
        )));
    };
    let node_bits: u32 = layout
        .node_fields()
        .iter()
        .map(|f| u32::from(f.bits()))
        .sum();
    let host_bits = 32 - u32::from(len);
    if node_bits > host_bits {
        return Err(Error::invalid(ArgumentKind::Configuration, format!(
            "{variable}: layout {} has {node_bits} node bits, but {address} on {interface} lies in {net}/{len}, which leaves only {host_bits} bits to tell hosts apart",
            layout.name()
        )));
    }
    let number = u64::from(u32::from(address)) & ((1u64 << node_bits) - 1);
    let nodes = split_node_number(layout, number, &variable)?;
    Ok((
        nodes,
        format!("{variable} ({address} on {interface}: node {number})"),
    ))
}

/// This host's IPv4 addresses with their interfaces, in the order the
/// system lists them (`getifaddrs`, by interface index).
#[cfg(unix)]
#[allow(unsafe_code)]
pub fn system_ipv4_addresses() -> Vec<(String, Ipv4Addr)> {
    let mut found = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a linked list we free below; each
    // entry's name is a NUL-terminated string and its address, when of
    // family AF_INET, a sockaddr_in.
    unsafe {
        if libc::getifaddrs(&mut list) != 0 {
            return found;
        }
        let mut entry = list;
        while !entry.is_null() {
            let e = &*entry;
            if !e.ifa_addr.is_null() && i32::from((*e.ifa_addr).sa_family) == libc::AF_INET {
                let sin = &*(e.ifa_addr as *const libc::sockaddr_in);
                let address = Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
                let name = std::ffi::CStr::from_ptr(e.ifa_name)
                    .to_string_lossy()
                    .into_owned();
                found.push((name, address));
            }
            entry = e.ifa_next;
        }
        libc::freeifaddrs(list);
    }
    found
}

/// This host's IPv4 addresses (none where `getifaddrs` is unavailable).
#[cfg(not(unix))]
pub fn system_ipv4_addresses() -> Vec<(String, Ipv4Addr)> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(list: &[(&str, [u8; 4])]) -> Vec<(String, Ipv4Addr)> {
        list.iter()
            .map(|(i, a)| ((*i).to_owned(), Ipv4Addr::from(*a)))
            .collect()
    }

    #[test]
    fn the_low_node_bits_of_the_first_private_address() {
        let sony = Layout::preset("sonyflake").unwrap();
        let addresses = at(&[
            ("lo", [127, 0, 0, 1]),
            ("eth0", [192, 0, 2, 2]),
            ("eth1", [10, 1, 2, 3]),
            ("eth2", [192, 168, 9, 9]),
        ]);
        let (nodes, source) = nodes_from_private_ipv4(&sony, &addresses).unwrap();
        assert_eq!(nodes, [0x0203]);
        assert!(source.contains("10.1.2.3 on eth1"), "{source}");
        // twitter: 10 node bits, 5 + 5; 192.168.1.7 -> 0x107 = datacenter 8, machine 7.
        let (nodes, _) =
            nodes_from_private_ipv4(&Layout::twitter(), &at(&[("en0", [192, 168, 1, 7])])).unwrap();
        assert_eq!(nodes, [8, 7]);
        for private in [
            [172, 16, 0, 1],
            [172, 31, 255, 1],
            [100, 64, 3, 4],
            [169, 254, 0, 1],
        ] {
            assert!(
                private_range(Ipv4Addr::from(private)).is_some(),
                "{private:?}"
            );
        }
        for public in [
            [172, 32, 0, 1],
            [100, 128, 0, 1],
            [192, 0, 2, 2],
            [11, 0, 0, 1],
            [127, 0, 0, 1],
        ] {
            assert!(
                private_range(Ipv4Addr::from(public)).is_none(),
                "{public:?}"
            );
        }
    }

    #[test]
    fn refused_without_a_private_address_or_with_too_many_node_bits() {
        let sony = Layout::preset("sonyflake").unwrap();
        let err = nodes_from_private_ipv4(
            &sony,
            &at(&[("lo", [127, 0, 0, 1]), ("eth0", [192, 0, 2, 2])]),
        )
        .unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        assert!(
            err.to_string()
                .contains("only 127.0.0.1 on lo, 192.0.2.2 on eth0"),
            "{err}"
        );
        assert!(nodes_from_private_ipv4(&sony, &[])
            .unwrap_err()
            .to_string()
            .contains("no IPv4 address"));
        let wide = Layout::custom(0, 30)
            .node("node", 20)
            .sequence_bits(8)
            .build()
            .unwrap();
        let err = nodes_from_private_ipv4(&wide, &at(&[("eth0", [192, 168, 1, 2])])).unwrap_err();
        assert!(
            err.to_string()
                .contains("192.168.1.2 on eth0 lies in 192.168.0.0/16, which leaves only 16 bits"),
            "{err}"
        );
        // The same layout fits inside 10/8.
        assert_eq!(
            nodes_from_private_ipv4(&wide, &at(&[("eth0", [10, 1, 2, 3])]))
                .unwrap()
                .0,
            [0x10203 & 0xFFFFF]
        );
    }
}
