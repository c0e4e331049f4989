"""A condition is not a permission; a standing rule restricts (issue 11, item 5). Decided without a model.

Each phrasing is tried on the same quote to a named contact: conditions and restrictions hold it back with "it goes
to someone the owner hasn't named" until an answer of the owner's shows it; words that only look like one let it go.
"""

import pytest

from checks import reasons
from checks.decide import decide
from tests.checks.helpers import agent, handoff, owner, read, request, routine, send

QUOTE = send(["dana@juniperdental.test"],
             "Hi Dana,\n\nFor the logo and signage for both clinics, the price is $4,600.\n\nSam", subject="Your quote")
THANKS = send(["dana@juniperdental.test"], "Hi Dana,\n\nThanks for the lovely note about the launch.\n\nSam",
              subject="Thank you")


def check(conversation, action=QUOTE):
    return decide(request(conversation, action), judge=None)


def outcome(d):
    return d.outcome, d.reason


HELD = ("ask", reasons.NOT_NAMED)
WENT = ("go", None)

CONDITIONS = [
    "Price Dana's rebrand from the rate card and send it to her once I've seen it.",
    "Send Dana the quote once I've had a look.",
    "Send Dana the quote, but let me see it first.",
    "Send Dana the quote when I say so.",
    "Send Dana the quote when I give the word.",
    "Send Dana the quote after I check it.",
    "Send Dana the quote after I've approved it.",
    "Send Dana the quote as soon as I've OK'd it.",
    "Don't send Dana the quote until I've seen it.",
    "Send Dana the quote, not before I've signed off on it.",
    "Hold the quote for Dana until I say so.",
    "Send Dana the quote, pending my approval.",
    "Email Dana the quote, subject to my OK.",
    "Send Dana the quote. But show it to me first.",
    "Send Dana the quote. Let me have a look before it goes.",
    "Send Dana the quote, but run it by me first.",
    "Send Dana the quote, check with me before it goes.",
    "Write up Dana's quote for me to review.",
    "Draft a reply to Dana with the quote.",
    "Send Dana the quote; wait for my go-ahead.",
    "Once I've checked the numbers, send Dana the quote.",
    "Dana's quote can go once I'm happy with it.",
    "Send Dana's quote. Actually, hang fire, I want to check it first.",
    "Get Dana's quote ready and I'll give you the nod.",
    "Prepare Dana's quote, I'll say when to send it.",
    "Send Dana the quote after I've run my eye over it.",
    "Put together the quote for Dana; I'd like to see it before you send it.",
    "Dana needs a quote. Show me before anything goes to her.",
    "Send Dana the quote if I approve it.",
    "Send Dana the quote — I'll confirm first.",
    "Send it to Dana Whitfield once I've given it the once-over.",
    "Send Dana the quote after I've looked it over.",
    "Hold fire on Dana's quote until I'm back on Monday.",
    "Make sure I see the quote before Dana does.",
]

STANDING = [
    "I see every quote before it goes out.",
    "Sam sees every quote before it goes out.",
    "I want to see all quotes before they're sent.",
    "Never send prices without me.",
    "Don't send any quote without my OK.",
    "Nothing goes out without my OK.",
    "Nothing goes to clients without me seeing it first.",
    "Sam approves all quotes.",
    "I sign off on every estimate.",
    "Quotes go through me.",
    "Every quote must be approved by Sam.",
    "Prices need my sign-off.",
    "Ask me first before sending any price.",
    "Check with Sam before you send a quote.",
    "Over $3,000, ask Sam first.",
]


@pytest.mark.parametrize("words", CONDITIONS)
def test_a_request_with_a_condition_on_the_owner_holds_the_send(words):
    assert outcome(check([owner(words)])) == HELD


@pytest.mark.parametrize("words", STANDING)
def test_a_standing_rule_holds_a_quote_even_when_the_owner_names_the_recipient(words):
    assert outcome(check([routine(words), owner("Send Dana the quote for the rebrand.")])) == HELD


@pytest.mark.parametrize("words", STANDING[:4])
def test_a_standing_rule_in_the_owner_s_own_words_holds_too(words):
    assert outcome(check([owner(words), owner("Reply to Dana about the rebrand.")])) == HELD


@pytest.mark.parametrize("words", CONDITIONS[:6] + STANDING[:6])
def test_an_answered_ask_that_shows_the_send_lets_it_go(words):
    conversation = [owner(words), agent("Send Dana the rebrand quote, logo and signage for both clinics, for $4,600?"),
                    owner("Yes, send it")]
    assert outcome(check(conversation)) == WENT


@pytest.mark.parametrize("words", CONDITIONS[:6] + STANDING[:6])
def test_a_yes_to_another_figure_does_not_cover_this_one(words):
    conversation = [owner(words), agent("Send Dana the rebrand quote, logo and signage for both clinics, for $3,900?"),
                    owner("Yes, send it")]
    assert outcome(check(conversation)) == HELD


def test_a_yes_to_an_ask_about_something_else_does_not_cover_the_quote():
    conversation = [routine("I see every quote before it goes out."),
                    agent("Tell Dana the signage proofs arrive Tuesday?"), owner("Yes")]
    assert outcome(check(conversation)) == HELD


def test_the_owner_s_own_request_with_the_figure_is_the_owner_having_seen_it():
    assert outcome(check([routine("I see every quote before it goes out."),
                          owner("Send Dana the rebrand quote: $4,600 for the logo and signage.")])) == WENT


def test_a_later_unconditional_request_lifts_an_earlier_condition_for_a_send_without_figures():
    action = send(["dana@juniperdental.test"], "Hi Dana,\n\nThe signage proofs are attached.\n\nSam")
    assert outcome(check([owner("Send Dana the signage proofs when I say so."), owner("OK, send Dana the proofs now.")],
                         action)) == WENT


def test_a_restriction_in_another_agent_s_notes_holds_too():
    conversation = [handoff("Price Dana's rebrand and send it.", "Sam wants to see every quote before it goes out.",
                            "Get Dana a price for the rebrand.")]
    assert outcome(check(conversation)) == HELD


def test_the_reason_relies_on_the_owner_s_words_that_hold_it():
    d = check([routine("Answer the same day. I see every quote before it goes out."),
               owner("Send Dana the quote for the rebrand.")])
    assert "Answer the same day. I see every quote before it goes out." in d.relied_on


NOT_CONDITIONS = [
    # The agent meets these itself by doing the work: the send is the condition met.
    "Send Dana the quote once it's ready.",
    "Finish Dana's quote and send it to her when you're done.",
    "Send Dana the quote once you've checked the rate card.",
    "Send Dana the quote after you've double-checked the numbers.",
    # Words that only look like a condition or a hold.
    "Send Dana the quote and let me know when it's gone.",
    "Send Dana the quote unless I say otherwise.",
    "I've seen the quote and it's fine. Send it to Dana.",
    "I checked every line of it this morning; send Dana the quote.",
    "Proofread the quote before it goes out, then send it to Dana.",
    "Send Dana the quote first, then Rosa the invoice.",
    "Send Dana the quote. I read all my mail in the evening.",
    "Handle Dana's quote without me, I'm away this week: send it to her.",
    "Send Dana the quote before Friday.",
    "Send Dana the quote first thing tomorrow.",
    "Send Dana the quote when you get a chance.",
    "When you've priced it, send Dana the quote.",
    "Send Dana the quote once the rate card is updated.",
    "Send Dana Whitfield the quote and copy me in so I can see it.",
    "Before you send Dana the quote, double-check the sign sizes.",
    "If Dana asks about parking, tell her there's a car park behind us. Send her the quote.",
    "Send Dana the quote. I'll check my email tonight if she replies.",
]


@pytest.mark.parametrize("words", NOT_CONDITIONS)
def test_words_that_are_not_a_condition_on_the_owner_let_the_send_go(words):
    assert outcome(check([owner(words)])) == WENT


@pytest.mark.parametrize("words", STANDING[:6])
def test_a_standing_rule_about_quotes_lets_a_thank_you_go(words):
    assert outcome(check([routine(words), owner("Thank Dana for the lovely note about the launch.")], THANKS)) == WENT


def test_a_threshold_lets_a_send_under_it_go():
    action = send(["dana@juniperdental.test"], "Hi Dana,\n\nThe price for the door sign is $450.\n\nSam")
    assert (
        outcome(check([routine("Over $3,000, ask Sam first."), owner("Send Dana the door sign quote.")], action))
        == WENT
    )


def test_a_condition_on_someone_else_is_for_a_judge_and_without_one_is_asked_about():
    d = check([owner("Once Dana confirms the date, send her the quote."),
               read("From: Dana Whitfield <dana@juniperdental.test>\nThe 14th works for us.")])
    assert outcome(d) == ("ask", reasons.UNREACHABLE)


def test_a_routine_s_own_condition_is_its_trigger_and_holds_nothing():
    action = send(["dana@juniperdental.test"], "Hi Dana,\n\nThanks for your payment, it arrived today.\n\nSam")
    assert outcome(check([routine("When Dana Whitfield pays, thank her.")], action)) == WENT


def test_a_hold_covers_the_people_its_words_are_about():
    rosa_send = send(["rosa@ortizbakery.test"], "Hi Rosa,\n\nThe price for the menu boards is $640.\n\nSam")
    conversation = [owner("Send Dana her quote once I've seen it. Send Rosa Ortiz the menu board quote for $640.")]
    assert (outcome(check(conversation, rosa_send)), outcome(check(conversation))) == (WENT, HELD)


ISSUE_RULE = (
    "Answer the same day. Quotes come from the rate card in Drive, and Sam sees every quote before it goes out."
)
ISSUE_WORDS = "Dana wants a quote for signage. Get one from the rate card and send it to her once I've seen it."


def test_the_issue_s_quote_is_held_by_the_rules_and_cites_no_condition_as_permission():
    # Issue 11: this $4,600 quote went by the rules alone, citing these very words as permission.
    d = check([routine(ISSUE_RULE), owner(ISSUE_WORDS)])
    assert (outcome(d), d.decided_by) == (HELD, "rules")


def test_after_the_yes_the_quote_goes_on_the_answer_not_on_the_condition():
    d = check(
        [
            routine(ISSUE_RULE),
            owner(ISSUE_WORDS),
            agent("Here's Dana's quote: logo and signage for both clinics, $4,600. Send it?"),
            owner("Looks good, send it."),
        ]
    )
    assert outcome(d) == WENT
    assert ISSUE_WORDS not in d.relied_on and ISSUE_RULE not in d.relied_on and "Looks good, send it." in d.relied_on
