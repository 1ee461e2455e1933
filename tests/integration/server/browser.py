"""Driving the page in a real headless Chromium (Selenium + chromium-driver), for the browser tests.

Importing this module skips the importing test module, with the reason, where Chromium,
chromium-driver or selenium is missing; CI installs them (`.ci/run`).
"""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")
if CHROMIUM is None or DRIVER is None:
    pytest.skip("needs Chromium and chromium-driver (apt-get install chromium chromium-driver)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

__all__ = ["EC", "By", "Select", "ask", "by_testid", "chromium", "last_turn", "latest", "send_question", "turns", "wait"]

WAIT_S = 60


@contextmanager
def chromium(url: str, downloads: Path | None = None, size: str = "1400,900") -> Iterator[Any]:
    """A headless Chromium at ``url``, quit on exit; downloads land in ``downloads``."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={size}", "--disable-extensions"):
        options.add_argument(arg)
    if downloads is not None:
        options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                                  "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=webdriver.ChromeService(DRIVER), options=options)
    if downloads is not None:
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    try:
        driver.get(url)
        yield driver
    finally:
        driver.quit()


def by_testid(testid: str) -> tuple[str, str]:
    return By.CSS_SELECTOR, f'[data-testid="{testid}"]'


def wait(driver: Any, seconds: float = WAIT_S) -> WebDriverWait:
    return WebDriverWait(driver, seconds)


def turns(driver: Any) -> list[Any]:
    """The conversation's turns shown now, oldest first."""
    return driver.find_elements(*by_testid("turn"))


def last_turn(driver: Any) -> Any:
    return turns(driver)[-1]


def latest(driver: Any) -> Any:
    """The answer box of the last turn."""
    return last_turn(driver).find_element(*by_testid("answer"))


def answered(driver: Any) -> bool:
    """True once the last turn's answer has finished (an answer, or a refusal)."""
    shown = turns(driver)
    if not shown:
        return False
    box = shown[-1].find_element(*by_testid("answer"))
    return box.get_attribute("data-state") == "done" and box.get_attribute("data-refused") is not None


def send_question(driver: Any, question: str, *, follow_up: bool = False) -> None:
    """Type the question and submit it; a new conversation first unless ``follow_up``."""
    driver.find_element(*by_testid("tab-ask")).click()
    if not follow_up:
        driver.find_element(*by_testid("new-conversation")).click()
    box = driver.find_element(*by_testid("question"))
    box.clear()
    box.send_keys(question + "\n")


def ask(driver: Any, question: str, *, follow_up: bool = False) -> Any:
    """Ask and wait until the answer has finished streaming; the answer box."""
    before = len(turns(driver)) if follow_up else 0
    send_question(driver, question, follow_up=follow_up)
    wait(driver).until(lambda d: len(turns(d)) == before + 1 and answered(d))
    return latest(driver)
