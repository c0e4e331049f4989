"""research's feed check refuses what the web group refuses (one address policy, core/web_addresses.py): the
IPv6 spellings that carry a private IPv4 address, the decimal and octal forms, and metadata addresses that are
otherwise public."""

import pytest

from research import netguard


@pytest.mark.parametrize("url", [
    "http://[64:ff9b::a00:1]/feed",  # NAT64 for 10.0.0.1
    "http://[2002:7f00:1::]/feed",  # 6to4 for 127.0.0.1
    "http://2130706433/feed",  # 127.0.0.1 in decimal
    "http://0177.0.0.1/feed",  # in octal
    "http://168.63.129.16/feed",  # Azure's wireserver, on a public address
    "http://[fd00:ec2::254]/feed",  # AWS metadata over IPv6
    "http://224.0.0.251/feed",
])
def test_the_feed_check_refuses_what_the_web_group_refuses(url):
    with pytest.raises(netguard.AddressRefused):
        netguard.check_url(url)


def test_a_public_address_is_still_read():
    netguard.check_url("http://93.184.216.34/feed")
