"""The dashboard in a real headless Chromium (Debian's, through Selenium and Debian's
chromedriver) against a real ``stoker serve``, on SQLite and on PostgreSQL: choose the
project, launch a stack from its parameters' form (a constraint violated first: its
description appears at the field), preview, create; watch the stack and its topology
turn from in progress to complete without a reload (a wait condition holds the create
until the test signals it: nothing races a timer), open a resource, reveal a sensitive
output, update, delete. Each page's screenshot goes to tmp/artifacts/dashboard/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.helpers import PATIENCE

from .browser import ARTIFACTS, Serve, browser  # noqa: F401 (a fixture)

pytestmark = pytest.mark.heavy

TEMPLATE = (Path(__file__).parent / "data" / "waiting-site.yaml").read_text()
SECRET = "correct-horse"


@pytest.fixture
def serve(store_url: str, tmp_path: Path) -> Iterator[Serve]:
    server = Serve(store_url, tmp_path / "serve.log")
    yield server
    server.stop()


class Shots:
    """Saves a screenshot of each page, named in the scenario's order."""

    def __init__(self, driver: Any, folder: Path) -> None:
        self.driver = driver
        self.folder = folder
        self.count = 0
        folder.mkdir(parents=True, exist_ok=True)

    def __call__(self, name: str) -> None:
        self.count += 1
        height = self.driver.execute_script("return document.documentElement.scrollHeight")
        width = self.driver.get_window_size()["width"]
        self.driver.set_window_size(width, min(max(int(height) + 140, 600), 4000))
        self.driver.save_screenshot(str(self.folder / f"{self.count:02d}-{name}.png"))


def _wait(driver: Any, condition: Any, what: str) -> Any:
    """Until ``condition`` holds; an element the page swapped out meanwhile (the stack's
    page replaces its parts as the stack changes) is looked up again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    waiting = WebDriverWait(
        driver, PATIENCE, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException]
    )
    return waiting.until(condition, what)


def _click(driver: Any, by: str, value: str) -> None:
    """Click the element, looked up again if the page swapped it out first."""
    _wait(driver, lambda d: d.find_element(by, value).click() or True, f"to click {value}")


def _text(driver: Any, css: str) -> str:
    """The element's text now, read in one step ("" while it is not there)."""
    found: str = driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css
    )
    return found.strip()


def _classes(driver: Any, element_id: str) -> str:
    """The classes of the topology's node ``element_id`` ("" while it is not drawn)."""
    found: str = driver.execute_script(
        "const e = document.getElementById(arguments[0]); return e ? e.getAttribute('class') : ''",
        element_id,
    )
    return found


def _fill(driver: Any, element_id: str) -> str:
    """The colour a node's box is painted with now (the stylesheet's, by its classes)."""
    found: str = driver.execute_script(
        "return getComputedStyle(document.querySelector('#' + arguments[0] + ' rect')).fill",
        element_id,
    )
    return found


def _unlabelled(driver: Any) -> list[str]:
    """The form controls on the page that no label names (accessibility)."""
    found: list[str] = driver.execute_script(
        """
        return Array.from(document.querySelectorAll('input, select, textarea'))
          .filter(e => e.type !== 'hidden')
          .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
          .map(e => e.name || e.id);
        """
    )
    return found


def test_launch_follow_reveal_update_delete(
    browser: Any,  # noqa: F811 (the fixture)
    serve: Serve,
    backend: str,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver = browser
    shot = Shots(driver, ARTIFACTS / "dashboard" / backend)
    find = driver.find_element

    # a browser asking for / is sent to the dashboard, which asks for the project
    driver.get(serve.url + "/")
    _wait(driver, lambda d: "/dashboard/login" in d.current_url, "the login page")
    assert _unlabelled(driver) == []
    shot("choose-project")
    project = find(By.ID, "project-input")
    project.clear()
    project.send_keys("demo", Keys.ENTER)  # the keyboard alone submits
    _wait(driver, lambda d: d.current_url.endswith("/dashboard/stacks"), "the stack list")
    assert _text(driver, "#project") == "demo"
    shot("stacks-empty")

    # launch: paste the template, then its parameters' form
    find(By.LINK_TEXT, "Launch stack").click()
    find(By.ID, "stack_name").send_keys("site")
    area = find(By.ID, "template_text")
    driver.execute_script("arguments[0].value = arguments[1]", area, TEMPLATE)
    shot("launch")
    find(By.ID, "next").click()
    site = _wait(driver, lambda d: d.find_element(By.ID, "param-site"), "the parameters' form")
    assert _unlabelled(driver) == []
    password = find(By.ID, "param-password")
    assert password.get_attribute("type") == "password"
    password.send_keys(SECRET)
    legends = [e.text for e in driver.find_elements(By.TAG_NAME, "legend")]
    assert "Naming" in legends  # parameter_groups as sections
    assert site.get_attribute("value") == "web"  # the default filled in
    site.clear()
    site.send_keys("ab")  # shorter than the length constraint allows
    find(By.ID, "preview-button").click()
    message = _wait(
        driver, lambda d: _text(d, "#param-site-error"), "the constraint's message at the field"
    )
    assert message == "A site name has 3 to 12 characters"
    assert site.get_attribute("aria-invalid") == "true"
    shot("launch-constraint-violated")
    site.clear()
    site.send_keys("website")
    assert _text(driver, "#param-site-error") == ""
    find(By.ID, "preview-button").click()
    _wait(driver, lambda d: d.find_elements(By.ID, "preview"), "the preview")
    assert "3 resources would be created" in _text(driver, "#preview-title")
    shot("launch-preview")
    find(By.ID, "create-button").click()

    # the stack's page: in progress until the wait condition is signalled
    _wait(driver, lambda d: d.find_elements(By.ID, "stack-status"), "the stack's page")
    stack_id = find(By.ID, "stack").get_attribute("data-stack-id")
    assert _text(driver, "#stack-status") == "CREATE_IN_PROGRESS"
    driver.execute_script("window.stokerNoReload = true")
    _wait(
        driver,
        lambda d: "CREATE_IN_PROGRESS" in _text(d, "tr[data-resource=wait]"),
        "the wait condition in progress",
    )
    _wait(
        driver,
        lambda d: "status-in-progress" in _classes(d, "node-wait"),
        "the wait condition's node in progress",
    )
    assert _fill(driver, "node-wait") != _fill(driver, "node-handle")  # coloured by state
    shot("stack-in-progress")
    response = httpx.post(
        f"{serve.url}/v1/demo/stacks/site/{stack_id}/resources/handle/signal",
        json={"status": "SUCCESS", "reason": "the test says go", "id": "1"},
    )
    assert response.status_code == 200, response.text
    _wait(
        driver,
        lambda d: _text(d, "#stack-status") == "CREATE_COMPLETE",
        "the stack complete, shown without a reload",
    )
    _wait(
        driver,
        lambda d: "status-complete" in _classes(d, "node-value"),
        "the topology's nodes complete",
    )
    assert "status-complete" in _classes(driver, "node-wait")
    assert _fill(driver, "node-wait") == _fill(driver, "node-handle")
    assert driver.execute_script("return window.stokerNoReload") is True
    assert "CREATE_COMPLETE" in _text(driver, "tr[data-resource=value]")
    assert "wait" in _text(driver, "#event-list")
    shot("stack-complete")

    # outputs: the sensitive one is hidden until revealed
    _wait(driver, lambda d: d.find_elements(By.ID, "output-list"), "the outputs")
    assert SECRET not in driver.page_source
    assert "<sensitive>" in _text(driver, "#output-list")
    assert "website" in _text(driver, "#output-list")
    _click(driver, By.CSS_SELECTOR, "#output-list a[data-reveal]")
    _wait(driver, lambda d: SECRET in _text(d, "#output-list"), "the output revealed")
    shot("output-revealed")

    # a resource's page, from its node in the topology
    _click(driver, By.CSS_SELECTOR, "#node-value a")
    _wait(driver, lambda d: _text(d, "#resource-name") == "value", "the resource's page")
    assert _text(driver, "#resource-status") == "CREATE_COMPLETE"
    shot("resource")
    driver.back()

    # the template, with its lines numbered
    _click(driver, By.LINK_TEXT, "Template and environment")
    _wait(driver, lambda d: d.find_elements(By.ID, "template-L1"), "the template")
    assert "heat_template_version" in _text(driver, "#template-L1")
    shot("template")
    driver.back()

    # update: a new value for the site
    _wait(driver, lambda d: d.find_elements(By.ID, "update-link"), "the stack's page")
    _click(driver, By.ID, "update-link")
    site = _wait(driver, lambda d: d.find_element(By.ID, "param-site"), "the update form")
    assert site.get_attribute("value") == "website"
    assert find(By.ID, "param-password").get_attribute("value") == ""
    site.clear()
    site.send_keys("renamed")
    shot("update")
    find(By.ID, "update-submit").click()
    _wait(
        driver,
        lambda d: _text(d, "#stack-status") == "UPDATE_COMPLETE",
        "the update complete",
    )
    _wait(driver, lambda d: "renamed" in _text(d, "#output-list"), "the new output")

    # the stack list, filtered by status
    find(By.LINK_TEXT, "Stacks").click()
    _wait(driver, lambda d: d.find_elements(By.ID, "stacks"), "the stack list")
    assert "UPDATE_COMPLETE" in _text(driver, "#stacks")
    shot("stacks")
    find(By.ID, "status").send_keys("FAILED")
    find(By.ID, "q").send_keys(Keys.ENTER)
    _wait(driver, lambda d: d.find_elements(By.ID, "no-stacks"), "no failed stack")
    find(By.ID, "status").send_keys("COMPLETE")
    find(By.ID, "q").send_keys(Keys.ENTER)
    _wait(driver, lambda d: d.find_elements(By.LINK_TEXT, "site"), "the complete stack")
    find(By.LINK_TEXT, "site").click()
    _wait(driver, lambda d: d.find_elements(By.ID, "stack-status"), "the stack's page")

    # the phone-sized screen
    driver.set_window_size(390, 844)
    driver.refresh()
    _wait(driver, lambda d: d.find_elements(By.ID, "stack-status"), "the stack's page")
    overflow = driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 1, "the page scrolls sideways on a phone"
    shot("stack-phone")
    driver.set_window_size(1280, 1000)

    # delete, after the confirmation
    _click(driver, By.ID, "delete-link")
    _wait(driver, lambda d: d.find_elements(By.ID, "confirm_name"), "the confirmation")
    shot("delete-confirm")
    find(By.ID, "confirm_name").send_keys("site")
    find(By.ID, "confirm-delete").click()
    _wait(
        driver,
        lambda d: _text(d, "#stack-status") == "DELETE_COMPLETE",
        "the stack deleted",
    )
    _wait(driver, lambda d: d.find_elements(By.ID, "stack-deleted"), "the stack marked deleted")
    assert not driver.find_elements(By.ID, "delete-link")
    find(By.LINK_TEXT, "Stacks").click()
    _wait(driver, lambda d: d.find_elements(By.ID, "no-stacks"), "an empty stack list")
