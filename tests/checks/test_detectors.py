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


# ---------------------------------------------------------------------------------------------------- formatting tricks

@pytest.mark.parametrize("text", [
    "Card 4111.1111.1111.1111, exp 08/28",  # dots
    "Card 4111/1111/1111/1111",  # slashes
    "Card 4111 / 1111 / 1111 / 1111",  # slashes with spaces
    "Card 4111 - 1111 - 1111 - 1111",
    "Card 4111-1111.1111 1111",  # mixed
    "Card 4111_1111_1111_1111",
    "Card 4111\\1111\\1111\\1111",
    "Card ４１１１ １１１１ １１１１ １１１１",  # full-width digits
    "Card 4111\u200b1111\u200b1111\u200b1111",  # zero-width spaces
    "Card 4\u200c1\u200d1\u20601 1111 1111 1111",  # joiners and word joiners
    "Card 4111\u00ad1111\u00ad1111\u00ad1111",  # soft hyphens
    "Card 4111\u20131111\u20141111\u22121111",  # en dash, em dash, minus sign
    "Card 4111\u00a01111\u202f1111\u30001111",  # no-break, narrow and ideographic spaces
    "Card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",  # one digit at a time
    "Card 4̶1̶1̶1̶ 1111 1111 1111",  # combining strokes over the digits
    "Card <b>4111</b> 1111 <span>1111</span> 1111",  # tags between the groups
    "Card &#52;111 1111 1111 1111",  # an HTML entity for the first digit
    "Card ٤١١١ ١١١١ ١١١١ ١١١١",  # Arabic-Indic digits
])
def test_a_card_is_found_however_it_is_dressed_up(text):
    assert kinds(text) == ["card"]


def test_a_card_split_across_a_line_break_is_one_card():
    # The check reads a send's subject and text as one, joined by a line break.
    assert kinds("New card 4111 1111\n1111 1111 exp 08/28") == ["card"]


@pytest.mark.parametrize("text", [
    "Phones: 415 555 0199 / 415 555 0142",  # two phone numbers do not chain into a Visa
    "415.555.0199\n415.555.0142\n415.555.0177",
    "Dates 12.05.2026 / 13.05.2026 / 14.05.2026",
    "Slots 10/11/2026 09.30 - 10/11/2026 11.45",
    "Ref ４７１６ ０３８２ ９９１５ ２２０７",  # full width, but fails Luhn
])
def test_looser_separators_do_not_turn_everyday_numbers_into_cards(text):
    assert kinds(text) == []


def test_an_iban_and_an_ssn_are_found_through_the_same_tricks():
    assert kinds("IBAN DE89.3704.0044.0532.0130.00") == ["iban"]
    assert kinds("SSN: ５１２\u200b４８\u200b３９２０") == ["ssn"]
    assert kinds("SSN 512 / 48 / 3920") == ["ssn"]


# ---------------------------------------------------------------------------------------------------- national IDs

def found(text):
    return [(f.kind, f.scheme) for f in find_sensitive(text)]


@pytest.mark.parametrize("text,scheme", [
    ("Her SIN is 130 692 544.", "ca_sin"),
    ("SIN: 046-454-286", "ca_sin"),
    ("Social insurance number 130.692.544", "ca_sin"),
    ("130 692 544 (SIN)", "ca_sin"),
    ("130692544 is Dana's social insurance number", "ca_sin"),
    ("NI number: AB 12 34 56 C", "uk_nino"),
    ("National Insurance no. JG103759A", "uk_nino"),
    ("national insurance QQ 12 34 56 C", "uk_nino"),  # HMRC's specimen, next to its cue
    ("NHS number 943 476 5919", "uk_nhs"),
    ("PPS number 1234567T", "ie_ppsn"),
    ("PPSN: 1234567FA", "ie_ppsn"),
    ("TFN 123 456 782", "au_tfn"),
    ("Tax file number: 459 599 230", "au_tfn"),
    ("Medicare card 2123 45670 1", "au_medicare"),
    ("IRD number 49-091-850", "nz_ird"),
    ("Aadhaar 2345 6789 0124", "in_aadhaar"),
    ("PAN card ABCPE1234F", "in_pan"),
    ("NRIC S1234567D", "sg_nric"),
    ("DNI 12345678-Z", "es_dni"),
    ("NIE: X-1234567-L", "es_nie"),
    ("codice fiscale RSSMRA85T10A562S", "it_codice_fiscale"),
    ("numéro de sécurité sociale 1 85 05 78 006 084 91", "fr_nir"),
    ("Social security number 2 95 02 2A 005 012 34", "fr_nir"),
    ("Steuer-ID 86 095 742 719", "de_steuer_id"),
    ("BSN 1112.22.333", "nl_bsn"),
    ("Rijksregisternummer 85.07.30-033.28", "be_national_number"),
    ("PESEL 44051401359", "pl_pesel"),
    ("Personnummer 811218-9876", "se_personnummer"),
    ("personnummer 19811218-9876", "se_personnummer"),
    ("henkilötunnus 131052-308T", "fi_hetu"),
    ("fødselsnummer 151086 95088", "no_fodselsnummer"),
    ("CPR-nummer 211062-5629", "dk_cpr"),
    ("SA ID number 750330 5044 08 9", "za_id"),
    ("Passport number 925665416", "passport"),
    ("passport no. X1234567", "passport"),
    ("Driver's licence MORGA753116SM9IJ", "driver_licence"),
    ("Her national ID number is 8001015009087", "za_id"),  # a cue for any country
    ("ID number: 44051401359", "pl_pesel"),  # PESEL, or any other country's number it is valid as
    ("my social is 512 48 3920", "us_ssn"),
    ("ITIN 912-70-3456", "us_itin"),
    ("SIN:\n130 692 544", "ca_sin"),  # the number on the next line
])
def test_an_id_number_next_to_its_cue_is_found(text, scheme):
    assert [k for k, _ in found(text)] in (["national_id"], ["ssn"])
    assert scheme in {s for _, s in found(text)} or text.startswith(("ID number", "Her national ID")), found(text)


def test_a_number_before_its_cue_is_found_after_an_earlier_number_was_tried():
    # The second SIN stands before its cue, far from the first one: the cue's position must still be known after
    # the first number's groups were tried.
    text = ("SIN: 046-454-286. Thanks for the forms; the rest of the paperwork follows next week with the "
            "invoice. Dana's is 130 692 544 (SIN)")
    assert found(text) == [("national_id", "ca_sin"), ("national_id", "ca_sin")]


@pytest.mark.parametrize("text,scheme", [
    ("AB 12 34 56 C", "uk_nino"),  # a National Insurance number with its suffix: its form is its own
    ("Marco Rossi, RSSMRA85T10A562S, starts Monday", "it_codice_fiscale"),
])
def test_an_id_whose_form_is_its_own_needs_no_cue(text, scheme):
    assert found(text) == [("national_id", scheme)]


@pytest.mark.parametrize("text", [
    "130 692 544",  # a SIN's digits, no cue: could be any reference
    "Case 130 692 544 is closed.",
    "Order reference 123456782",  # a valid TFN and BSN, called an order reference
    "Your booking 046-454-286 is confirmed.",
    "512-48-3920",
    "2345 6789 0124",
    "44051401359",
    "SIN: 130 692 545",  # its cue, but the Luhn check fails
    "TFN 123 456 789",  # fails the TFN's checksum
    "NI number: AB 12 34",  # too short
    "Part AB123456C in stock",  # a part number shaped like an NI number
    "ab123456c",  # lower case, no cue
    "routing number 021000021",  # a bank's routing number: public
    "Our tax ID is 123456789",  # the business's own
    "Our EIN is 12-3456789",
    "Tax ID: 12-3456789",  # an employer number's form
    "SIN and phone: 416 555 0199",  # the number is called a phone
    "TFN not needed; booking 123 456 782",
    "Order ID number 123456782",  # someone's reference, not a person's ID
    "Customer ID: 44051401359",
    "Passport expires 12/05/2031",
    "Passport renewal takes 6 weeks",
    "Driver's licence expires 2027-03-01",
    "NHS number not needed, just call 020 7946 0958",
    "Please bring your passport and the booking ref 48213377",
    "Sin 130 692 544",  # the word, not the acronym
    "We were founded in 1998 and have 130692544 views",
])
def test_ambiguous_numbers_without_their_cue_are_not_ids(text):
    assert found(text) == []


# ---------------------------------------------------------------------------------------------------- passwords, more

@pytest.mark.parametrize("text", [
    "pass: Tide2026!",
    "login: sam pass: Maple42",
    "user / password: sam.k / Tulip!2026",
    "Username/Password - jen@harbor.test / Harbor!77",
    "Login: sam.k / Tulip2026",
    "username: jen\nHarbor!77",
    "Wi-Fi: FernGuest / Tide2026!",
    "the Wi-Fi password is bluebell.",
    "The Wi-Fi password is bluebell",
    "The password for the studio Wi-Fi is Saltmarsh8",
    "password Tulip2026",
    "Password - Tulip2026",
    "passwd=S3cure",
    "p/w: harbor77",
    "PIN: 4821",
    "PIN 4821",
    "pin number is 0912",
    "The door code is 2580#.",
    "The gate code for the side entrance is 4417.",
    "Key safe code: 1984",
    "Lockbox combination 3-7-1-9",
    "Alarm code 55120",
    "The new password is now 'blue horse battery'",
    "password has been changed to Cedar!Lane9",
    "Wi-Fi key: 8f3kd92mLq",
    "Passcode 482913",
    "PASSWORD:\nTide2026!",
])
def test_passwords_and_codes_are_found_in_many_phrasings(text):
    assert kinds(text) and set(kinds(text)) <= {"password", "sign_in_code"}, kinds(text)


@pytest.mark.parametrize("text", [
    "Here is the password reset link: https://accounts.lotus.test/reset",
    "Forgot my password? Click the link below.",
    "Your password is incorrect.",
    "Your password must be 12 characters or more.",
    "The password is at least 10+ characters long.",
    "Password: see below",
    "Password: sent separately",
    "The Wi-Fi password is on the back of the router.",
    "The password for the portal is in 1Password.",
    "Wi-Fi password: ask at reception",
    "Password protected PDF attached.",
    "The door code changes on Monday.",
    "Door code: same as last time",
    "Enter the PIN from the card reader.",
    "PIN pad at the front desk is broken.",
    "Please pin 2026 dates to the calendar.",
    "Inspection pass: complete.",
    "Season pass: 2026",
    "Bus pass: £45 a month",
    "Password expires in 90 days.",
    "Password manager invitation for the team",
    "email: info@lotusyoga.test / phone 555 0142",
    "Login to the portal at https://portal.test/login/r/8812",
    "Passwords must include a symbol.",
    "Your password: ********",
])
def test_everyday_words_about_passwords_are_not_passwords(text):
    assert kinds(text) == []


# ---------------------------------------------------------------------------------------------------- lists, weak cues

def test_every_number_of_a_list_under_one_cue_is_found():
    text = "SINs for payroll:\nFarah 046 454 286\nJordan 193 456 787"
    assert [f.value for f in find_sensitive(text)] == ["046454286", "193456787"]


@pytest.mark.parametrize("text", [
    "the employees' NI numbers: AB123456C",  # plural, possessive
    "TFNs: 123 456 782",
    "NHS 943 476 5919",  # a cue that means other things too, right before the number
    "IRD: 49-091-850",
    "Medicare 2123 45670 1",
])
def test_plural_and_short_cues_right_before_the_number(text):
    assert kinds(text) == ["national_id"]


@pytest.mark.parametrize("text", [
    "NHS appointment on Tuesday, call 365.408.3897",  # NHS the service, then a phone
    "Medicare rebate: see 20230814",
    "IRD return filed on 12/11/2026, ref 49091850",
    "TFN declaration due, see 20281117 / 3/15/2021",  # a date and the start of another
    "No SIN needed. ship to OR 18690-0650",  # a ZIP+4, in another sentence
    "SSN not required; 7/25/2020 / 04/06/2029",  # two dates
    "National Insurance contributions: PO 709592",  # a PO number, not an NI number
    "ID card printer jammed. Call 0406 084 583",
    "Medicare: call +61 2 1928 9425",  # a phone number with its country code
    "Driver's licence renewal: ship to 95252 Berlin",
    "Passport photos: 2 for $15, order 48213377",
])
def test_cue_words_near_other_numbers_find_nothing(text):
    assert kinds(text) == []


@pytest.mark.parametrize("text", [
    "552907 is your Stripe verification code",
    "G-552907 is your Google verification code.",
    "The code to the lockbox is 4417",
    "Backup codes: 8fk2-9dk3 4kd9-2kd8",
    "Network BloomGuest, password hawthorn",
    "user sam.k password tulip",
    "the wifi pw is hawthorn",
    "card:4111-1111-1111-1111exp08/28",
])
def test_more_ways_of_writing_codes_passwords_and_cards(text):
    assert kinds(text) and set(kinds(text)) <= {"password", "sign_in_code", "card"}


@pytest.mark.parametrize("text", [
    "Email me if the password changes.",
    "1042 is your booking code",
    "My account password manager is Bitwarden.",
    "Policy : 4712-2375-8673 / 6% done",  # three groups and a percentage: not one card
])
def test_and_their_everyday_lookalikes_find_nothing(text):
    assert kinds(text) == []


def test_a_long_list_under_one_cue_is_found_to_its_end():
    people = ["Farah 046 454 286", "Jordan 193 456 787", "Sam 130 692 544", "Kai 046 454 286"]
    text = "The SINs for payroll, as promised:\n" + "\n".join(people)
    assert len(find_sensitive(text)) == 4


@pytest.mark.parametrize("text,kind", [
    ("Sort code 20-00-00, acc no 73849102", "bank_account"),
    ("BSB 062-000 acc 12345678", "bank_account"),
    ("The login for the portal is sam / Tide2026", "password"),
    ("Credentials: sam / Tide2026", "password"),
    ("Tide2026! is the new Wi-Fi password.", "password"),
    ("4417 is the door code", "password"),
    ("Use code 552907 to sign in.", "sign_in_code"),
    ("Enter 552 907 to verify your account", "sign_in_code"),
])
def test_values_written_before_their_words_and_short_account_cues(text, kind):
    assert kinds(text) == [kind]


@pytest.mark.parametrize("text", [
    "Use code 4471 to confirm your order",
    "This is the password reset email.",
    "2FA is the code",
    "SAVE20 is the code",
    "What is the Wi-Fi password?",
    "Hawthorn is the password",  # a capitalised word before the words could be anything: not taken
    "Login details: in the binder / shelf",
    "Details: see the PDF / page 2",
])
def test_and_the_lookalikes_of_those(text):
    assert kinds(text) == []
