from widget_mcp.toolkit.principal import ANONYMOUS, Principal, resolve_principal


def test_the_verified_subject_wins_over_any_hint() -> None:
    assert resolve_principal({"openai/subject": "v1/abc"}, verified_subject="user-1") == Principal("oauth", "user-1")


def test_the_openai_subject_names_the_principal_when_there_is_no_sign_in() -> None:
    principal = resolve_principal({"openai/subject": "v1/abc", "io.modelcontextprotocol/user": "other"})
    assert principal == Principal("openai", "v1/abc")
    assert principal.key == "openai:v1/abc"


def test_a_host_user_hint_is_used_when_chatgpt_sends_none() -> None:
    assert resolve_principal({"io.modelcontextprotocol/user": {"id": "u-7"}}) == Principal("host", "u-7")


def test_without_any_hint_the_caller_is_anonymous() -> None:
    assert resolve_principal(None) is ANONYMOUS
    assert resolve_principal({}).is_anonymous


def test_malformed_hints_are_ignored_rather_than_trusted() -> None:
    assert resolve_principal({"openai/subject": "x" * 500}) is ANONYMOUS
    assert resolve_principal({"openai/subject": "a b\nc"}) is ANONYMOUS
    assert resolve_principal({"openai/subject": 42}) is ANONYMOUS
