/**
 * Which network addresses a webhook may reach. A seller names the URL, so an unchecked target would let it
 * make our servers call their own neighbours: the cloud metadata service (169.254.169.254), a database on
 * a private network, the worker's own loopback. Live sellers' deliveries go to public unicast addresses
 * only; a sandbox seller may also use loopback (a receiver on the developer's machine). ipaddr.js (the
 * address library Fastify's proxy-addr uses) classifies the ranges, IPv4-mapped IPv6 included.
 */
import ipaddr from 'ipaddr.js'

export type TargetPolicy = 'public' | 'public_or_loopback'

export function targetPolicy(sandbox: boolean): TargetPolicy {
  return sandbox ? 'public_or_loopback' : 'public'
}

/** Whether `address` (an IP literal) may be called under `policy`; anything unparseable may not. */
export function addressAllowed(address: string, policy: TargetPolicy): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6
  try {
    ip = ipaddr.parse(address.replace(/^\[|\]$/g, ''))
  } catch {
    return false
  }
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address()
  const range = ip.range()
  return range === 'unicast' || (policy === 'public_or_loopback' && range === 'loopback')
}

/**
 * What can be said of a target without resolving its name (the core runs in browsers too): an IP literal
 * must be allowed, and `localhost` names loopback. A name is checked again, resolved, at each delivery.
 * Returns the reason a target is refused, or null.
 */
export function targetRefusal(url: URL, policy: TargetPolicy): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (ipaddr.isValid(host)) return addressAllowed(host, policy) ? null : `${host} is not a public address`
  if (host === 'localhost' || host.endsWith('.localhost'))
    return policy === 'public_or_loopback' ? null : `${host} is not a public address`
  return null
}
