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
