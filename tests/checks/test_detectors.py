"""Each detector both ways: real-looking numbers of several issuers and countries stop; the numbers of everyday
business mail (phones, invoices, ZIP+4, tracking, timestamps, order ids) don't."""

import pytest

from checks.detectors import card_issuer, find_sensitive, iban_valid, luhn_valid
from tests.checks.helpers import with_luhn_digit


def kinds(text, allowed=()):
    return [f.kind for f in find_sensitive(text, allowed=allowed)]


# ---------------------------------------------------------------------------------------------------- cards

@pytest.mark.parametrize("number", [
    "4111 1111 1111 1111",  # Visa
    "4929-3817-5520-6418",  # Visa, hyphens
    "4222222222222",  # Visa, 13 digits
    "5555 5555 5555 4444",  # Mastercard 51-55
    "2221 0000 0000 0009",  # Mastercard 2-series, low end
    "2720 9999 9999 9996",  # Mastercard 2-series, high end
    "3782 822463 10005",  # Amex, 4-6-5
    "371449635398431",  # Amex, compact
    "6011 1111 1111 1117",  # Discover
    "3566 0020 2036 0505",  # JCB
    "3056 9309 0259 04",  # Diners
    "6200 0000 0000 0005",  # UnionPay
    "6759 6498 2643 8453",  # Maestro
])
def test_card_numbers_of_real_issuers_are_found(number):
    assert kinds(f"Please charge {number}, exp 08/28.") == ["card"]


def test_a_card_inside_a_longer_run_of_numbers_is_found():
    assert "card" in kinds("Refs 1042 4111 1111 1111 1111")


@pytest.mark.parametrize("number", [
    "4111 1111 1111 1112",  # Visa prefix, fails Luhn
    "4716 0382 9915 2207",  # an order number that fails Luhn
    with_luhn_digit("222099999999999"),  # Luhn-valid, just below Mastercard's 2-series
    with_luhn_digit("272100000000000"),  # Luhn-valid, just above it
    with_luhn_digit("202611100912345"),  # Luhn-valid 16 digits starting 2026: a timestamp-like reference
    with_luhn_digit("900000000000000"),  # Luhn-valid, no issuer starts with 9
    with_luhn_digit("41111111111111"),  # Visa prefix at 15 digits: not a Visa length
])
def test_luhn_invalid_or_issuerless_numbers_are_not_cards(number):
    assert kinds(f"Reference {number}.") == []


def test_luhn_and_issuer_helpers_agree_with_known_numbers():
    assert luhn_valid("4111111111111111") and card_issuer("4111111111111111") == "visa"
    assert card_issuer("2221000000000009") == "mastercard" and card_issuer("2220999999999999") is None


# ---------------------------------------------------------------------------------------------------- IBAN

@pytest.mark.parametrize("iban", [
    "GB82 WEST 1234 5698 7654 32",
    "DE89 3704 0044 0532 0130 00",
    "FR14 2004 1010 0505 0001 3M02 606",
    "NL91ABNA0417164300",
    "es91 2100 0418 4502 0005 1332",
    "CH93 0076 2011 6238 5295 7",
    "BE68 5390 0754 7034",
    "NO93 8601 1117 947",
    "IT60 X054 2811 1010 0000 0123 456",
    "PL61 1090 1014 0000 0712 1981 2874",
])
def test_ibans_of_several_countries_are_found(iban):
    assert kinds(f"Pay to {iban} please.") == ["iban"]


@pytest.mark.parametrize("text", [
    "GB82 WEST 1234 5698 7654 33",  # checksum off by one
    "DE89 3704 0044 0532 0130",  # too short for Germany
    "XX12 3456 7890 1234 5678 90",  # no such country
    "Unit AB12 3CD, block 7",  # a postcode-looking thing
])
def test_iban_lookalikes_are_not_ibans(text):
    assert kinds(text) == []


def test_iban_helper_checks_length_and_mod_97():
    assert iban_valid("GB82WEST12345698765432") and not iban_valid("GB82WEST1234569876543")


# ---------------------------------------------------------------------------------------------------- bank numbers

@pytest.mark.parametrize("text,kind", [
    ("Checking account 004471290531", "bank_account"),
    ("Checking account 004471290531, routing number 026009593", "bank_account"),
    ("account no. 12345678 at First Harbor Bank", "bank_account"),
    ("Sort code 40-47-84, account number 70872490", "bank_account"),
    ("Wire it to account 7720193844 by Friday", "bank_account"),
])
def test_account_and_routing_numbers_next_to_a_cue_are_found(text, kind):
    assert kind in kinds(text)


@pytest.mark.parametrize("text", [
    "Our purchase order is 482913375.",  # nine digits, no cue
    "routing number 123456789",  # a cue, but not a valid ABA number
    "routing number 026009593",  # a bank's routing number alone is public: printed on every cheque
    "ABA: 011000015",
    "Sort code 40-47-84, BSB 062-000, transit 00011",  # branch codes alone, likewise
    "The card on the account ends in 6418.",  # too short to be an account number
    "Your customer account is 88213.",
    "Account manager: Dana, phone 503 555 0142",
])
def test_numbers_without_a_bank_cue_or_form_are_not_bank_numbers(text):
    assert kinds(text) == []


# ---------------------------------------------------------------------------------------------------- SSN

@pytest.mark.parametrize("text", [
    "SSN: 512-48-3920",
    "Social Security Number 401 52 7731",
    "my social security number is 219099999",
    "TIN: 512-48-3920",
])
def test_ssns_with_a_cue_and_valid_groups_are_found(text):
    assert kinds(text) == ["ssn"]


@pytest.mark.parametrize("text", [
    "512-48-3920",  # no cue
    "SSN: 000-48-3920",  # area 000
    "SSN: 666-48-3920",  # area 666
    "SSN: 912-48-3920",  # area 9xx
    "SSN: 512-00-3920",  # group 00
    "SSN: 512-48-0000",  # serial 0000
])
def test_ssn_without_cue_or_with_invalid_groups_is_not_found(text):
    assert kinds(text) == []


# ---------------------------------------------------------------------------------------------------- passwords, codes

@pytest.mark.parametrize("text,kind", [
    ("login: studio@fernhill.test\npassword: Maple!Fern42", "password"),
    ("The Wi-Fi password is Tide$2026!", "password"),
    ("pwd=hunter22", "password"),
    ("PIN: 4821", "password"),
    ("Here is the verification code: 304118", "sign_in_code"),
    ("Your one-time code is 552-907", "sign_in_code"),
    ("2FA code 77120431", "sign_in_code"),
])
def test_passwords_and_sign_in_codes_are_found(text, kind):
    assert kind in kinds(text)


@pytest.mark.parametrize("text", [
    "Reset your password at https://accounts.fernhill.test/reset",
    "The password is required to open the file.",
    "Your password: ********",
    "Use discount code SAVE20 at checkout.",
    "The zip code is 97214.",
    "Security code sent at 2026-11-10 09:12.",
])
def test_words_about_passwords_without_one_are_not_found(text):
    assert kinds(text) == []


# ---------------------------------------------------------------------------------------------------- keys, secrets

@pytest.mark.parametrize("text", [
    "sk-proj-Qm7vX2rT9kLp4ZaW8cNy1eH5sJd3uBo6FgR0tYiK2wPxVn7LqM",
    "ghp_R8k2LmQ9vX4tN7pW1sZ6yB3cD5fH0jK2aE4g",
    "AKIA4FHX7TQ2LMZP9WRB",
    "xoxb-2201-88120-Zq9WcLr2Xv",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "aws_secret_access_key = q8Zr2/VkP7tN4xWb9LcE1mHs6JdYf3Ug0AiTn5Ko",
    "client_secret: 9f8E7d6C5b4A3z2Y1x0W",
    "token  Zx81Qw92Er73Ty64Ui55Op46As37Df28Gh19Jk",  # high-entropy token standing alone
])
def test_api_keys_and_secrets_are_found(text):
    assert kinds(text)[0] in ("api_key", "secret")


@pytest.mark.parametrize("text", [
    "https://docs.google.com/document/d/1QmR8vT3kLp0aZ7xYc2NwE5sHd6jUb4oF/edit",  # a link's id
    "Ref 8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22",  # a UUID
    "sha256 3f1c9a527b0e4d619a8f2c5e1b7d4a903f1c9a527b0e4d619a8f2c5e1b7d4a90",  # a checksum, hex
    "Tracking 1Z4F29A70392418836 and 1Z999AA10123456784",
    "the-new-brand-guidelines-for-juniper-dental-second-clinic",
])
def test_links_ids_hashes_and_tracking_are_not_secrets(text):
    assert kinds(text) == []


# ---------------------------------------------------------------------------------------------------- hard negatives

@pytest.mark.parametrize("text", [
    "Installer: (503) 555-0142, me: +1 415 555 0199, landline 503.555.0177, UK +44 20 7946 0958",
    "Still open: INV-2026-00417 for $12,450.00 and invoice #1049 for $6,200.00, PO 4500021877",
    "Juniper Dental, 1420 SE Alder St, Suite 200, Portland, OR 97214-3308",
    "UPS 1Z 4F2 9A7 03 9241 8836, FedEx 7712 3456 7890, USPS 9400 1000 0000 0000 0000 00",
    "Confirmed: 2026-11-17T10:00:00-05:00 to 2026-11-17T11:00:00-05:00, epoch 1762768320008 ms",
    "Order number 4716 0382 9915 2207, Amazon order #112-4471932-8813001",
])
def test_everyday_business_numbers_are_not_sensitive(text):
    assert kinds(text) == []


# ---------------------------------------------------------------------------------------------------- own details

def test_the_business_s_own_iban_may_go_written_any_way():
    own = ["IBAN GB33 BUKB 2020 1555 5555 55"]
    assert kinds("Pay to gb33bukb20201555555555, ref 1047.", allowed=own) == []


def test_someone_else_s_iban_still_stops_beside_the_business_s_own():
    own = ["IBAN GB33 BUKB 2020 1555 5555 55"]
    text = "Ours: GB33 BUKB 2020 1555 5555 55. Theirs: DE89 3704 0044 0532 0130 00."
    assert kinds(text, allowed=own) == ["iban"]


def test_the_business_s_own_routing_and_account_may_go():
    own = ["Routing 021000021, account 7720193844 (Fernhill Studio LLC)"]
    assert kinds("Routing 021000021, account 7720193844.", allowed=own) == []


def test_a_password_is_never_the_business_s_own():
    assert kinds("password: Maple!Fern42", allowed=["password: Maple!Fern42"]) == ["password"]
