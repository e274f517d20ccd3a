"""A new player signs up, logs out, logs back in and reads every rules page, in a real
Chromium against a real Daphne server. Screenshots (desktop and phone, light and dark) go to
tests/browser/screenshots/."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import unique_name

pytestmark = pytest.mark.browser

GAMES = ["copolymer", "hadron", "tripen", "colorful"]
PASSWORD = "violet-lantern-5501"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}


def test_sign_up_log_out_log_in_and_read_the_rules(daphne_server, new_page, screenshot_dir):
    # Unique: the server's database is shared by every browser test of the session.
    bea = unique_name("Browser_Bea")
    page = new_page()
    page.goto(daphne_server.url + "/")
    page.get_by_role("link", name="Sign up").click()
    expect(page).to_have_url(re.compile(r"/accounts/signup/$"))

    # A bad attempt first: the form says what is wrong and nothing is created.
    page.fill("#id_username", "Bo")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD + "!")
    page.get_by_role("button", name="Sign up").click()
    expect(page.locator(".message.error")).to_contain_text("Your account was not created")
    expect(page.locator("#id_username_errors")).to_contain_text("3 to 20 characters")
    expect(page.locator("#id_password2_errors")).to_contain_text("didn’t match")
    page.screenshot(path=screenshot_dir / "signup-errors-desktop.png", full_page=True)

    page.fill("#id_username", bea)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.locator(".message.success")).to_have_text(f"Welcome to Tessera, {bea}!")
    expect(page.locator(".account-nav .who")).to_have_text(bea)
    page.screenshot(path=screenshot_dir / "home-logged-in-desktop.png", full_page=True)

    page.get_by_role("button", name="Log out").click()
    expect(page.locator(".message")).to_have_text("You are logged out.")
    expect(page.get_by_role("link", name="Log in")).to_be_visible()

    page.get_by_role("link", name="Log in").click()
    page.fill("#id_username", bea.lower())  # names ignore case
    page.fill("#id_password", "wrong password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".errorlist.nonfield")).to_contain_text("Please enter a correct username")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".message.success")).to_have_text(f"Welcome back, {bea}.")

    page.locator(".account-nav .who").click()
    expect(page.locator("h1")).to_have_text(bea)

    for game in GAMES:
        page.get_by_role("link", name="Rules", exact=True).click()
        page.locator(f'.game-card a[href="/rules/{game}/"]').click()
        check_rules_page(page, game)
        page.screenshot(path=screenshot_dir / f"rules-{game}-desktop.png", full_page=True)


def check_rules_page(page, game):
    expect(page).to_have_url(re.compile(f"/rules/{game}/$"))
    expect(page.locator(".ruling .badge").first).to_be_visible()
    visible = page.locator(".board-variants figure:visible")
    expect(visible).to_have_count(1)
    board = visible.locator("svg")
    expect(board).to_be_visible()
    assert board.locator("[data-cell]").count() >= 19
    box = board.bounding_box()
    assert box["width"] > 200 and box["height"] > 150


def test_size_picker_switches_the_board(daphne_server, new_page):
    page = new_page()
    page.goto(daphne_server.url + "/rules/tripen/")
    expect(page.locator(".board-variants figure:visible [data-cell]")).to_have_count(49)
    page.locator('.size-picker button[data-show="size-13"]').click()
    expect(page.locator(".board-variants figure:visible [data-cell]")).to_have_count(169)
    expect(page.locator('.size-picker button[data-show="size-13"]')).to_have_attribute("aria-pressed", "true")
    page.goto(daphne_server.url + "/rules/colorful/")
    page.get_by_role("button", name="long 4").click()
    expect(page.locator(".board-variants figure:visible [data-cell]")).to_have_count(44)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_phone_and_desktop_screenshots(daphne_server, new_page, screenshot_dir, scheme):
    phone = new_page(color_scheme=scheme, **PHONE)
    for path, name in [("/", "home"), ("/rules/tripen/", "rules-tripen"), ("/accounts/signup/", "signup")]:
        phone.goto(daphne_server.url + path)
        nav = phone.locator(".main-nav")
        expect(nav.get_by_role("link", name="Play")).to_be_visible()
        # Nothing wider than the screen: no sideways scrolling on a phone.
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.screenshot(path=screenshot_dir / f"{name}-phone-{scheme}.png", full_page=True)
    desktop = new_page(color_scheme=scheme)
    desktop.goto(daphne_server.url + "/")
    background = desktop.evaluate("getComputedStyle(document.body).backgroundColor")
    assert (background == "rgb(20, 23, 29)") == (scheme == "dark")
    desktop.screenshot(path=screenshot_dir / f"home-desktop-{scheme}.png", full_page=True)
    desktop.goto(daphne_server.url + "/rules/colorful/")
    desktop.screenshot(path=screenshot_dir / f"rules-colorful-desktop-{scheme}.png", full_page=True)


def test_theme_toggle_overrides_the_device_scheme(daphne_server, new_page):
    page = new_page(color_scheme="light")
    page.goto(daphne_server.url + "/rules/")
    toggle = page.locator("#theme-toggle")
    toggle.click()   # auto (light, as the device) -> dark
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.reload()    # remembered across pages
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(20, 23, 29)"
