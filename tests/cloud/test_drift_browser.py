"""The dashboard's Drift page in a real headless Chromium (Debian's, as the dashboard's
browser test drives it) against a real ``stoker serve`` over the sandbox: a network of
the stack (and one of its nested stack) disabled out of band by the real ``openstack``
client shows MODIFIED with its expected and actual value, Accept takes the nested one
into the stack, and the page then shows it in sync. Screenshots go to
tmp/artifacts/dashboard/drift/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.helpers import PATIENCE, wait_for
from dashboard.browser import ARTIFACTS, Serve, browser  # noqa: F401 (a fixture)

from .test_drift import openstack
from .test_drift_dashboard import INNER, TEMPLATE

pytestmark = pytest.mark.heavy


@pytest.fixture
def serve(tmp_path: Path, cloud_env: dict[str, str]) -> Iterator[Serve]:
    """``stoker serve`` (noauth) whose cloud is the sandbox (OS_CLOUD, as the CLI's)."""
    server = Serve(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "serve.log")
    yield server
    server.stop()


def _stack(serve: Serve) -> tuple[str, list[dict[str, Any]]]:
    """The stack made through the API, complete; its id and its drift (one level down)."""
    body = {"stack_name": "b", "template": TEMPLATE, "files": {"inner.yaml": INNER}}
    with httpx.Client() as client:
        created = client.post(f"{serve.url}/v1/admin/stacks", json=body)
        assert created.status_code == 201, created.text
        url = created.headers["location"]
        assert wait_for(client, url)["stack_status"] == "CREATE_COMPLETE"
        drift = client.get(url + "/drift?nested_depth=1").json()["drift"]
    return url.rsplit("/", 1)[-1], drift


def _text(driver: Any, css: str) -> str:
    found: str = driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css
    )
    return " ".join(found.split())


def _wait(driver: Any, condition: Any, what: str) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, PATIENCE, poll_frequency=0.1).until(condition, what)


def test_the_drift_page_in_a_browser(
    browser: Any,  # noqa: F811 (the fixture)
    serve: Serve,
    cloud_env: dict[str, str],
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    stack_id, drift = _stack(serve)
    top = {r["resource_name"]: r for r in drift if not r["parent_resource"]}
    inner = next(r for r in drift if r["parent_resource"] == "inner")
    openstack(cloud_env, "network", "set", "--disable", top["net"]["physical_resource_id"])
    openstack(cloud_env, "network", "set", "--disable", inner["physical_resource_id"])

    driver = browser
    folder = ARTIFACTS / "dashboard" / "drift"
    folder.mkdir(parents=True, exist_ok=True)
    driver.get(serve.url + "/dashboard/login")
    project = driver.find_element(By.ID, "project-input")
    project.clear()
    project.send_keys("admin", Keys.ENTER)
    _wait(driver, lambda d: d.current_url.endswith("/dashboard/stacks"), "the stack list")
    driver.get(f"{serve.url}/dashboard/stacks/{stack_id}")
    _wait(driver, lambda d: d.find_elements(By.ID, "drift-link"), "the stack's page")
    driver.find_element(By.ID, "drift-link").click()
    _wait(driver, lambda d: d.find_elements(By.ID, "drift-table"), "the drift page")
    assert _text(driver, 'tr[data-drift="net"]').startswith(
        "net OS::Neutron::Net MODIFIED admin_state_up true → false"
    )
    assert not driver.find_elements(By.CSS_SELECTOR, 'tr[data-drift="inner/net"]')

    depth = driver.find_element(By.ID, "nested_depth")
    depth.clear()
    depth.send_keys("1", Keys.ENTER)  # the keyboard alone asks again
    _wait(
        driver,
        lambda d: d.find_elements(By.CSS_SELECTOR, 'tr[data-drift="inner/net"]'),
        "the nested stack's rows",
    )
    assert "MODIFIED" in _text(driver, 'tr[data-drift="inner/net"]')
    unlabelled = driver.execute_script(
        """
        return Array.from(document.querySelectorAll('input, select, textarea, button'))
          .filter(e => e.type !== 'hidden')
          .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                       && !e.innerText.trim())
          .map(e => e.name || e.id);
        """
    )
    assert unlabelled == []
    driver.save_screenshot(str(folder / "01-drift-modified.png"))

    driver.find_element(By.CSS_SELECTOR, 'tr[data-drift="inner/net"] button[aria-label]').click()
    _wait(driver, lambda d: d.find_elements(By.ID, "drift-accepted"), "the accept's notice")
    assert _text(driver, "#drift-accepted") == (
        "The cloud's values of inner/net are now the stack's."
    )
    assert _text(driver, 'tr[data-drift="inner/net"]') == "inner/net OS::Neutron::Net IN_SYNC"
    assert "MODIFIED" in _text(driver, 'tr[data-drift="net"]')  # only what was accepted
    driver.save_screenshot(str(folder / "02-drift-accepted.png"))
    assert httpx.delete(f"{serve.url}/v1/admin/stacks/b/{stack_id}").status_code == 204
