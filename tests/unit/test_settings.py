import pytest
from widget_mcp.settings import Settings, SettingsError, load_settings


def test_allowed_hosts_are_read_as_a_comma_separated_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOWED_HOSTS", "api.example.com, localhost:*")
    assert load_settings().allowed_hosts == ("api.example.com", "localhost:*")


def test_a_wildcard_host_allowlist_is_refused_with_the_variable_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOWED_HOSTS", "*")
    with pytest.raises(SettingsError, match=r"ALLOWED_HOSTS: .*turn Host checking off"):
        load_settings()


def test_every_bad_value_is_reported_in_one_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIDGET_BASE_URL", "cdn.example.com")
    monkeypatch.setenv("MAX_BODY_BYTES", "lots")
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert "WIDGET_BASE_URL: must be an absolute http(s) URL, got 'cdn.example.com'" in str(caught.value)
    assert "MAX_BODY_BYTES: Input should be a valid integer" in str(caught.value)


def test_widget_origin_is_the_scheme_and_host_of_the_widget_base_url() -> None:
    settings = Settings(widget_base_url="https://cdn.example.com/widgets/v1/")
    assert settings.widget_base_url == "https://cdn.example.com/widgets/v1"
    assert settings.widget_origin == "https://cdn.example.com"


def test_powertools_service_name_comes_from_its_standard_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "chess-app")
    assert load_settings().service_name == "chess-app"


def test_log_level_accepts_lower_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOG_LEVEL", "debug")
    assert load_settings().log_level == "DEBUG"


def test_sign_in_is_off_by_default() -> None:
    assert Settings().auth_mode == "none"


def test_oauth_mode_without_an_issuer_and_audience_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTH_MODE", "oauth")
    with pytest.raises(SettingsError, match="AUTH_MODE=oauth needs OAUTH_ISSUER and OAUTH_AUDIENCE"):
        load_settings()


def test_oauth_settings_read_audiences_as_a_list_and_default_the_jwks_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTH_MODE", "oauth")
    monkeypatch.setenv("OAUTH_ISSUER", "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc/")
    monkeypatch.setenv("OAUTH_AUDIENCE", "client-1, client-2")
    settings = load_settings()
    assert settings.oauth_audience == ("client-1", "client-2")
    assert settings.jwks_url == "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc/.well-known/jwks.json"


@pytest.mark.parametrize("url", ["http://issuer.example.com", "ftp://127.0.0.1/x", "issuer.example.com"])
def test_an_issuer_that_is_not_https_is_refused_except_on_loopback(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("OAUTH_ISSUER", url)
    with pytest.raises(SettingsError, match="OAUTH_ISSUER: must be an https URL"):
        load_settings()
    monkeypatch.setenv("OAUTH_ISSUER", "http://127.0.0.1:8000/issuer")
    assert load_settings().oauth_issuer == "http://127.0.0.1:8000/issuer"


def test_no_browser_origin_may_call_cross_origin_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CORS_ORIGINS", raising=False)
    assert Settings().cors_origins == ()


def test_cors_origins_are_a_comma_separated_list_of_origins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORS_ORIGINS", "https://host.example.com/, http://localhost:*,http://[::1]:6274")
    assert load_settings().cors_origins == ("https://host.example.com", "http://localhost:*", "http://[::1]:6274")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("*", "must be an origin"),
        ("https://host.example.com/app", "must be an origin"),
        ("host.example.com", "must be an origin"),
        ("https://host.example.com:http", "must be an origin"),
        ("https://*.example.com", r"'\*' may only stand for the port"),
        ("https://host.example.com:8*", r"must be an origin"),
    ],
)
def test_a_cors_origin_with_a_path_or_a_wildcard_other_than_the_port_is_refused(
    monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    monkeypatch.setenv("CORS_ORIGINS", value)
    with pytest.raises(SettingsError, match=f"CORS_ORIGINS: .*{message}"):
        load_settings()


def test_form_check_budgets_are_read_and_a_value_budget_over_the_answer_budget_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FORMS_MAX_CHECK_STEPS", "50000")
    monkeypatch.setenv("FORMS_MAX_VALUE_STEPS", "5000")
    assert (load_settings().forms_max_check_steps, load_settings().forms_max_value_steps) == (50_000, 5_000)

    monkeypatch.setenv("FORMS_MAX_VALUE_STEPS", "60000")
    with pytest.raises(SettingsError, match="FORMS_MAX_VALUE_STEPS must not exceed FORMS_MAX_CHECK_STEPS"):
        load_settings()
