import { addressProblem, ipLiteral } from './address-policy';

const strict = { allowLoopback: false };

describe('addresses a metadata document may be fetched from', () => {
  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('allows the public address %s', (address) => {
    expect(addressProblem(address, strict)).toBeUndefined();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', 'cloud metadata'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved or documentation'],
    ['198.51.100.7', 'reserved or documentation'],
    ['203.0.113.9', 'reserved or documentation'],
    ['2001:db8::1', 'reserved or documentation'],
    ['240.0.0.1', 'reserved'],
    ['::ffff:127.0.0.1', 'IPv4-mapped address that is a loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped address that is a private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped address that is a cloud metadata'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::7f00:1', 'IPv4-compatible'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['2002:7f00:1::', '6to4'],
    ['2001::1', 'Teredo'],
    ['::ffff:0:7f00:1', 'SIIT'],
  ])('refuses %s (%s)', (address, what) => {
    expect(addressProblem(address, strict)).toContain(what);
  });

  it('allows loopback, and only loopback, with the development switch', () => {
    expect(addressProblem('127.0.0.1', { allowLoopback: true })).toBeUndefined();
    expect(addressProblem('::1', { allowLoopback: true })).toBeUndefined();
    expect(addressProblem('10.0.0.1', { allowLoopback: true })).toContain('private');
    expect(addressProblem('169.254.169.254', { allowLoopback: true })).toContain('cloud metadata');
  });

  it('reads IP literals out of URL host names', () => {
    expect(ipLiteral('[::1]')).toBe('::1');
    expect(ipLiteral('127.0.0.1')).toBe('127.0.0.1');
    expect(ipLiteral('app.example.com')).toBeUndefined();
    expect(new URL('https://0x7f.1/x').hostname).toBe('127.0.0.1');
  });
});
