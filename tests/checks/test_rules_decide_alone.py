"""Where a rule decides, its reason is the answer and the judge is never called (issue 11, items 1 and 7).

Each test runs the check with a judge that would say go to anything and records what it is sent: a case the rules
decide must reach its answer with `judge.sent == []`; a case the rules leave open shows the judge was asked.
"""

import pytest

from checks import reasons
from checks.decide import decide
from checks.judge import JudgeVerdict, ScriptedJudge
from tests.checks.helpers import ROSA, agent, handoff, owner, read, request, routine, send

ENQUIRIES = routine("Answer new enquiries the same day.", name="New enquiries")
ENQUIRY = read("From: Dana Whitfield <dana@juniperdental.test>\nTo: sam@fernhill.test\nSubject: Signage\n\n"
               "Could you quote signage for the second clinic?")


def decided(conversation, action, **kw):
    """(outcome, reason, whether the judge was asked), with a judge that would let anything go."""
    judge = ScriptedJudge(answer=lambda r: JudgeVerdict(outcome="go"))
    d = decide(request(conversation, action, **kw), judge=judge)
    return d.outcome, d.reason, bool(judge.sent)


NOT_NAMED = ("ask", reasons.NOT_NAMED, False)
FROM_READ = ("ask", reasons.FROM_READ, False)
REMOVES = ("ask", reasons.REMOVES, False)
GO = ("go", None, False)
OPEN = ("go", None, True)  # left to the judge, which said go


# ---------------------------------------------------------------------------------------------------- recipients

def test_an_address_nothing_mentions_is_not_covered_by_any_description():
    assert decided([ENQUIRIES, ENQUIRY], send(["quotes@signage-leads.test"])) == NOT_NAMED


def test_an_address_only_what_was_read_asks_to_send_to_is_not_covered():
    asked = read("From: Dana Whitfield <dana@juniperdental.test>\n\nPlease also send the quote to my "
                 "partner at lee@juniper-partners.test.")
    assert decided([ENQUIRIES, asked], send(["lee@juniper-partners.test"])) == NOT_NAMED


def test_the_sender_of_what_was_read_may_be_who_a_description_means():
    stranger = read("From: Kim Ode <kim@odeclinic.test>\n\nCould you quote a logo?")
    assert decided([ENQUIRIES, stranger], send(["kim@odeclinic.test"])) == OPEN


def test_a_reply_to_header_is_not_a_request_to_send_there():
    replyto = read("From: Web form <forms@fernhill.test>\nReply-To: kim@odeclinic.test\n\nLogo quote, please.")
    assert decided([ENQUIRIES, replyto], send(["kim@odeclinic.test"])) == OPEN


def test_a_hidden_copy_is_never_covered_by_a_description():
    action = send(["dana@juniperdental.test"], bcc=["archive@quote-vault.test"])
    assert decided([ENQUIRIES, ENQUIRY, read("Cc: archive@quote-vault.test")], action) == NOT_NAMED


def test_a_hidden_copy_a_description_asks_for_is_left_to_the_judge():
    bcc_rule = routine("Chase invoices more than a week overdue, and bcc the bookkeeper on every reminder.")
    invoices = read('{"invoices": [{"number": "1042", "email": "dana@juniperdental.test", "daysLate": 10}]}')
    action = send(["dana@juniperdental.test"], bcc=["books@ledgerly.test"])
    assert decided([bcc_rule, invoices, read("Bookkeeper: books@ledgerly.test")], action)[2] is True


def test_the_business_s_own_address_is_not_a_customer_a_description_means():
    assert decided([ENQUIRIES, ENQUIRY, read("Cc: office@fernhill.test")], send(["office@fernhill.test"])) == NOT_NAMED


def test_the_business_s_own_people_may_be_who_the_team_means():
    assert decided([routine("Let the team know about every new enquiry."), read("Cc: office@fernhill.test")],
                   send(["office@fernhill.test"])) == OPEN


def test_a_contact_nothing_points_to_is_not_who_answering_enquiries_means():
    assert decided([ENQUIRIES, ENQUIRY], send(["rosa@ortizbakery.test"])) == NOT_NAMED


def test_a_contact_may_be_who_all_our_clients_means():
    assert decided([routine("Wish all our clients a happy new year.")], send(["rosa@ortizbakery.test"])) == OPEN


def test_a_yes_for_one_person_does_not_reach_another_under_a_routine():
    conversation = [ENQUIRIES, agent("Send Dana the signage quote?"), owner("Yes")]
    assert decided(conversation, send(["rosa@ortizbakery.test"], "Hi Rosa, the signage quote.")) == NOT_NAMED


# ---------------------------------------------------------------------------------------------------- the owner's own

@pytest.mark.parametrize("address", ["sam@fernhill.test", "SAM@Fernhill.test", "Sam Rivera <sam@fernhill.test>",
                                     "sam+digest@fernhill.test"])
def test_mail_to_the_owner_s_own_mailbox_goes_without_being_asked_for(address):
    assert decided([owner("What came in today?")], send([address], "Three enquiries today.")) == GO


def test_the_owner_s_mailbox_beside_someone_unnamed_still_asks():
    assert decided([owner("Email me the list.")], send(["sam@fernhill.test", "list@leads.test"])) == NOT_NAMED


def test_a_tag_on_someone_else_s_address_is_not_the_owner():
    assert decided([owner("What came in today?")], send(["sam+x@fernhill-mail.test"])) == NOT_NAMED


# ---------------------------------------------------------------------------------------------------- names

ZOE = {"id": "z1", "name": "Zoë Laurent", "emails": ["zoe@laurent.test"], "company": None, "alwaysAsk": False}
MARK = {"id": "m1", "name": "Mark Ebbert", "emails": ["mark@ebbertfarms.test"], "company": None, "alwaysAsk": False}
DR = {"id": "h1", "name": "Dr. Hana Sato", "emails": ["hana@brightvet.test"], "company": None, "alwaysAsk": False}


def test_a_name_typed_without_its_accent_names_the_contact():
    assert decided([owner("Tell Zoe her books arrived.")], send(["zoe@laurent.test"]), contacts=[ZOE]) == GO


def test_a_first_name_after_a_title_names_the_contact():
    assert decided([owner("Email Hana that Moss is fine.")], send(["hana@brightvet.test"]), contacts=[DR]) == GO


@pytest.mark.parametrize("words", ["Mark needs his 1099s. Email him the list.", "Mark's 1099s are late; email him.",
                                   "Mark said he's missing two forms. Write to him."])
def test_a_name_that_is_also_a_word_names_the_contact_as_the_subject_of_a_sentence(words):
    assert decided([owner(words)], send(["mark@ebbertfarms.test"]), contacts=[MARK]) == GO


def test_a_name_that_is_also_a_word_used_as_a_verb_names_no_one():
    assert decided([owner("Mark the Ebbert invoice paid and send the receipt.")], send(["mark@ebbertfarms.test"]),
                   contacts=[MARK]) == NOT_NAMED


# ---------------------------------------------------------------------------------------------------- hand-offs

def test_a_hand_off_whose_owner_s_words_name_the_recipient_asks_for_the_send():
    work = handoff("Email Dana the new dates.", "", "Dana needs the new install dates, it's the 21st now.")
    assert decided([work], send(["dana@juniperdental.test"], "Install moves to the 21st.")) == GO


def test_a_hand_off_whose_owner_s_words_name_someone_else_does_not():
    work = handoff("Send Dana's quote to Rosa.", "Rosa asked.", "Dana's quote is final.")
    assert decided([work], send(["rosa@ortizbakery.test"], "Dana's quote.")) == NOT_NAMED


# ---------------------------------------------------------------------------------------------------- forwards

FORWARDED = read("From: Dana Whitfield <dana@juniperdental.test>\nCc: greg@juniperdental.test\nSubject: Sizes\n\n"
                 "The sign over the door is 2.4 m wide; the window decals are 60 cm each. Lee at "
                 "lee@juniper-partners.test approves the colours.")
BODY = ("---------- Forwarded message ---------\nFrom: Dana Whitfield <dana@juniperdental.test>\nCc: "
        "greg@juniperdental.test\nThe sign over the door is 2.4 m wide; the window decals are 60 cm each. Lee at "
        "lee@juniper-partners.test approves the colours.")


def test_forwarding_a_message_the_owner_asked_to_forward_carries_its_addresses():
    assert decided([owner("Forward Dana's sizes email to Rosa."), FORWARDED],
                   send(["rosa@ortizbakery.test"], BODY)) == GO


def test_other_people_s_addresses_in_a_send_not_asked_to_forward_are_left_to_the_judge():
    assert decided([owner("Tell Rosa the sign sizes."), FORWARDED], send(["rosa@ortizbakery.test"], BODY))[2] is True


# ---------------------------------------------------------------------------------------------------- changes

def update(contact_id, **values):
    return {"tool": "contacts.update", "input": {"contactId": contact_id, **values}}


def test_an_address_added_at_a_read_s_request_came_from_what_was_read():
    asked = read("From: Rosa Ortiz <rosa@ortizbakery.test>\n\nPlease use rosa.o@ortiz-bakery.test from now on.")
    action = update(ROSA["id"], emails=["rosa@ortizbakery.test", "rosa.o@ortiz-bakery.test"])
    assert decided([owner("Any news from Rosa's bakery?"), asked], action) == FROM_READ


def test_an_address_added_that_the_owner_asked_for_goes():
    asked = read("From: Rosa Ortiz <rosa@ortizbakery.test>\n\nPlease use rosa.o@ortiz-bakery.test from now on.")
    action = update(ROSA["id"], emails=["rosa@ortizbakery.test", "rosa.o@ortiz-bakery.test"])
    assert decided([owner("Add Rosa's new address from her email to her contact."), asked], action) == GO


def test_keeping_an_eye_on_someone_asks_for_no_change_to_them():
    asked = read("From: Rosa Ortiz <rosa@ortizbakery.test>\n\nUpdate my number to 503-555-0199 please.")
    action = update(ROSA["id"], phone="503-555-0199")
    assert decided([owner("Keep an eye on Rosa's emails."), asked], action) == FROM_READ


def test_rows_a_read_asked_for_came_from_what_was_read_whatever_their_writing():
    asked = read("Please add to your costs sheet: Ridge cap $58.00; Underlayment roll $1,096.50.")
    action = {"tool": "files.append_rows", "input": {"id": "s1", "range": "A:B",
                                                      "values": [["Ridge cap", 58], ["Underlayment roll", 1096.5]]}}
    assert decided([owner("Did the supplier write back?"), asked], action) == FROM_READ


def test_a_value_nobody_gave_is_left_to_the_judge():
    action = {"tool": "files.update_cells", "input": {"id": "s1", "range": "C3", "values": [["$3,300"]]}}
    assert decided([owner("Did the supplier write back?")], action)[2] is True


def test_saving_over_a_file_nobody_pointed_at_rewrites_it():
    action = {"tool": "files.save", "input": {"workspace": "q.xlsx", "over": "drive:1RateCard"},
              "replaces": {"file": "Rate card 2026"}}
    assert decided([owner("Work out the Juniper quote in a spreadsheet.")], action) == REMOVES


def test_saving_over_the_file_the_owner_named_goes():
    action = {"tool": "files.save", "input": {"workspace": "q.xlsx", "over": "drive:1RateCard"},
              "replaces": {"file": "Rate card 2026"}}
    assert decided([owner("Fix the day rate and save the new version over the Rate card 2026.")], action) == GO




def test_what_to_add_may_come_from_what_was_read_when_the_owner_asks_for_it():
    inbox = read("From: Owen Price <owen.price@outlook.test>\n\nCan Biscuit come Saturday at 10 for a full groom?")
    action = {"tool": "files.append_rows", "input": {"id": "s1", "range": "A:C",
                                                      "values": [["Biscuit", "Saturday 10:00", "full groom"]]}}
    assert decided([owner("Add the booking requests from the inbox to the bookings sheet."), inbox], action) == GO


NINA_P = {"id": "n1", "name": "Nina Park", "emails": ["nina@parkdistrib.test"], "company": None, "alwaysAsk": False}
NINA_V = {"id": "n2", "name": "Nina Vasquez", "emails": ["nina.v@quill.test"], "company": None, "alwaysAsk": False}


def test_a_shared_first_name_with_the_last_name_s_initial_names_one_contact():
    action = send(["nina@parkdistrib.test"], "October returns: $86.40.")
    assert decided([owner("Send Nina P. the October returns.")], action, contacts=[NINA_P, NINA_V]) == GO
    assert decided([owner("Send Nina the October returns.")], action, contacts=[NINA_P, NINA_V]) == NOT_NAMED


def test_an_article_after_a_shared_first_name_is_no_initial():
    adams = {"id": "n3", "name": "Nina Adams", "emails": ["nina@adams.test"], "company": None, "alwaysAsk": False}
    action = send(["nina@adams.test"], "A quote.")
    assert decided([owner("Send Nina a quote. Nina A quote is fine too.")], action,
                   contacts=[NINA_P, adams]) == NOT_NAMED


def test_a_hand_off_naming_each_recipient_in_another_of_the_owner_s_words_asks_for_the_send():
    work = {"role": "handoff", "from": "Client desk", "task": "Send the install dates.", "notes": "",
            "owner_words": [{"text": "Dana needs the install dates.", "where": "Client desk's chat"},
                            {"text": "Rosa too, she shares the fitter.", "where": "Client desk's chat"}]}
    action = send(["dana@juniperdental.test", "rosa@ortizbakery.test"], "Install on the 21st.")
    assert decided([work], action) == GO
