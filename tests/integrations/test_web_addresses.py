"""web.read's SSRF check (integrations/web/addresses.py): every kind of address that isn't the public web is
refused, in every spelling, before and after DNS resolution, with `bad_input` naming the URL and why."""

import pytest

from core import web_addresses as addresses
from core.errors import ToolError
from core.web_addresses import check_url


def refusal(url: str) -> str:
    with pytest.raises(ToolError) as caught:
        check_url(url)
    assert caught.value.kind == "bad_input"
    assert url[:60] in caught.value.message
    return caught.value.message


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1/admin/", "127.0.0.1 is a loopback address"),
        ("http://127.9.9.9/", "127.9.9.9 is a loopback address"),
        ("http://[::1]/", "::1 is a loopback address"),
        ("http://2130706433/", "127.0.0.1 is a loopback address"),  # decimal
        ("http://0177.0.0.1/", "127.0.0.1 is a loopback address"),  # octal
        ("http://0x7f.0.0.1/", "127.0.0.1 is a loopback address"),  # hex
        ("http://0x7f000001/", "127.0.0.1 is a loopback address"),
        ("http://127.1/", "127.0.0.1 is a loopback address"),  # short form
        ("http://[::ffff:127.0.0.1]/", "carries the IPv4 address 127.0.0.1, 127.0.0.1 is a loopback address"),
        ("http://[::ffff:7f00:1]/", "carries the IPv4 address 127.0.0.1"),
        ("http://10.0.0.5/", "10.0.0.5 is a private network address"),
        ("http://172.16.3.4/", "172.16.3.4 is a private network address"),
        ("http://192.168.1.1/router", "192.168.1.1 is a private network address"),
        ("http://012.0.0.1/", "10.0.0.1 is a private network address"),  # octal 10.0.0.1
        ("http://[fd12:3456::1]/", "fd12:3456::1 is a private network address"),
        ("http://[::ffff:10.1.2.3]/", "10.1.2.3 is a private network address"),
        ("http://[64:ff9b::a00:1]/", "carries the IPv4 address 10.0.0.1"),  # NAT64
        ("http://[2002:a00:1::]/", "carries the IPv4 address 10.0.0.1"),  # 6to4
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
        ("http://[::ffff:169.254.169.254]/", "169.254.169.254 is a cloud metadata address"),
        ("http://[fd00:ec2::254]/", "fd00:ec2::254 is a cloud metadata address"),
        ("http://100.100.100.200/latest/meta-data/", "100.100.100.200 is a cloud metadata address"),
        ("http://168.63.129.16/", "168.63.129.16 is a cloud metadata address"),
        ("http://169.254.10.10/", "169.254.10.10 is a link-local address"),
        ("http://[fe80::1]/", "fe80::1 is a link-local address"),
        ("http://100.64.1.1/", "carrier-grade NAT"),
        ("http://100.127.255.254/", "carrier-grade NAT"),
        ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),
        ("http://[ff02::1]/", "ff02::1 is a multicast address"),
        ("http://0.0.0.0/", "0.0.0.0 is the unspecified address"),
        ("http://0/", "0.0.0.0 is the unspecified address"),
        ("http://[::]/", ":: is the unspecified address"),
        ("http://240.0.0.1/", "reserved address"),
        ("http://255.255.255.255/", "255.255.255.255"),
        ("http://198.18.0.1/", "198.18.0.1"),
        ("http://localhost/", "localhost is a local name"),
        ("http://LOCALHOST./", "local name"),
        ("http://printer.local/", "local name"),
        ("http://metadata.google.internal/computeMetadata/v1/", "local name"),
    ],
)
def test_an_address_off_the_public_web_is_refused(url, why):
    assert why in refusal(url)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("file:///etc/passwd", "only http and https links can be read, not file"),
        ("ftp://files.example.test/a.pdf", "not ftp"),
        ("gopher://example.test:70/", "not gopher"),
        ("javascript:alert(1)", "not javascript"),
        ("//example.test/", "a link without a scheme"),
        ("http://example.test:22/", "port 22 is not one of the web's ports"),
        ("https://example.test:6379/", "port 6379"),
        ("http://example.test:99999/", "not a valid link"),
        ("http://admin:hunter2@example.test/", "user name or password"),
        ("http:///nohost", "names no host"),
    ],
)
def test_a_scheme_port_or_credentials_off_the_web_are_refused(url, why, dns):
    dns({"example.test": ["93.184.216.34"]})
    assert why in refusal(url)


@pytest.mark.parametrize(
    ("answers", "why"),
    [
        (["10.1.2.3"], "intranet.test resolves to 10.1.2.3 is a private network address"),
        (["127.0.0.1"], "resolves to 127.0.0.1 is a loopback address"),
        (["169.254.169.254"], "resolves to 169.254.169.254 is a cloud metadata address"),
        (["::ffff:192.168.0.10"], "carries the IPv4 address 192.168.0.10"),
        (["fe80::1%eth0"], "fe80::1 is a link-local address"),
        # One private address among public ones: which a connection would pick isn't ours to say.
        (["93.184.216.34", "10.0.0.1"], "resolves to 10.0.0.1 is a private network address"),
        (["2606:2800:220:1::1", "::1"], "resolves to ::1 is a loopback address"),
    ],
)
def test_a_name_that_resolves_off_the_public_web_is_refused(answers, why, dns):
    dns({"intranet.test": answers})
    assert why in refusal("https://intranet.test/wiki")


def test_a_public_address_passes_with_the_address_to_connect_to(dns):
    resolver = dns({"www.example.test": ["93.184.216.34", "2606:2800:220:1::1"]})
    target = check_url("https://www.example.test/about?x=1")
    assert (target.scheme, target.host, target.port, target.address) == ("https", "www.example.test", 443,
                                                                          "93.184.216.34")
    assert resolver.calls == ["www.example.test"]
    assert check_url("http://93.184.216.34:8080/").address == "93.184.216.34"
    assert check_url("http://[2606:2800:220:1::1]/").address == "2606:2800:220:1::1"


def test_a_name_that_does_not_resolve_is_not_found_not_refused(dns):
    with pytest.raises(ToolError) as caught:
        check_url("https://nowhere.test/")
    assert caught.value.kind == "not_found" and "no such host" in caught.value.message


def test_a_name_that_looks_like_hex_is_still_a_name(dns):
    dns({"cafe.test": ["93.184.216.34"], "beef": ["93.184.216.34"]})
    assert check_url("http://cafe.test/").address == "93.184.216.34"
    assert check_url("http://beef/").address == "93.184.216.34"


def test_the_refusal_names_the_input_field(dns):
    with pytest.raises(ToolError) as caught:
        check_url("http://10.0.0.1/", field="urls[3]")
    assert caught.value.message.startswith("urls[3]: http://10.0.0.1/ is refused: ")


def test_the_allow_list_lets_only_its_addresses_through_and_only_in_the_tests(settings, dns):
    with addresses.allowing_for_tests("127.0.0.1"):
        assert check_url("http://127.0.0.1:5555/").address == "127.0.0.1"
        assert "127.0.0.2 is a loopback address" in refusal("http://127.0.0.2/")
    assert "loopback" in refusal("http://127.0.0.1/")
    settings.ROADSTAR_ENV = "production"
    with pytest.raises(RuntimeError, match="test suite only"), addresses.allowing_for_tests("127.0.0.1"):
        pass
