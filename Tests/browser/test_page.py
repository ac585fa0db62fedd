"""guest serve's page in a real browser: headless Chromium (Debian's chromium and chromium-driver)
driven by Selenium, against a running `guest serve`. One STEP per run, so the Swift test that
drives it (EndToEndTests.PageBrowserEndToEndTests) can kill the Homebase or stop the relay in
between. Prints one JSON object as its last line: what it saw. Exit 1 with {"ok": false, ...}
when a check fails.

Steps:
  load   the page loads; no console error; every request the browser made went to the page's own
         loopback origin (Chrome's performance log: Network.requestWillBeSent). Screenshots:
         load-wide.png (desktop, 1280x900) and load-phone.png (390x844, the one-column layout).
  ask    types QUESTION into the box with the keyboard, presses Enter, waits for the answer's
         line; prints the line (brain, why, first token, tok/s, fallback). Screenshot: ask-NAME.png.
  host   `homebase status --serve`'s page: loads, no console error, nothing off loopback, the
         relay link shown; prints the link and requests text. Screenshot: host.png.
  link   waits until the relay link pill leaves `connected` and the own advert's bar is empty
         (aria-valuenow 0); prints both. Screenshot: link-down.png.
"""
import argparse
import json
import sys
from urllib.parse import urlparse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def browser(width, height):
    o = webdriver.ChromeOptions()
    o.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              f"--window-size={width},{height}", "--no-first-run", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--disable-default-apps"]:
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


def requests_made(d):
    """URLs of every request the page made (the performance log: CDP Network events)."""
    urls = []
    for entry in d.get_log("performance"):
        m = json.loads(entry["message"])["message"]
        if m.get("method") == "Network.requestWillBeSent":
            urls.append(m["params"]["request"]["url"])
    return urls


def finish(result):
    print(json.dumps(result))
    sys.exit(0 if result.get("ok") else 1)


def load(d, url, art):
    d.get(url)
    WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "link-state").text not in ("", "?"))
    d.save_screenshot(f"{art}/load-wide.png")
    d.set_window_size(390, 844)
    d.get(url)
    WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "link-state").text not in ("", "?"))
    one_column = d.find_element(By.ID, "panel").location["y"] > d.find_element(By.ID, "chat").location["y"]
    d.save_screenshot(f"{art}/load-phone.png")
    off = off_loopback(d, url)
    errors = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
    finish({"ok": not off and not errors and one_column, "off_loopback": off, "console_errors": errors,
            "one_column_on_phone": one_column, "link": d.find_element(By.ID, "link-state").text})


def ask(d, url, art, question, name):
    d.get(url)
    box = WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "prompt"))
    box.click()
    box.send_keys(question)
    box.send_keys(Keys.ENTER)
    meta = WebDriverWait(d, 240).until(
        lambda d: (d.find_elements(By.CSS_SELECTOR, "#messages li.assistant:not([aria-busy]) .meta") or [None])[-1])
    text = d.find_elements(By.CSS_SELECTOR, "#messages li.assistant .text")[-1].text
    d.save_screenshot(f"{art}/ask-{name}.png")
    brain = meta.find_elements(By.CSS_SELECTOR, ".brain")
    errors = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
    finish({"ok": bool(brain) and not errors, "line": meta.text, "brain": brain[0].text if brain else None,
            "answer_chars": len(text), "console_errors": errors})


def off_loopback(d, url):
    origin = urlparse(url)
    return [u for u in requests_made(d)
            if not (u.startswith("data:") or u.startswith("blob:") or
                    (urlparse(u).hostname == origin.hostname and urlparse(u).port == origin.port))]


def host(d, url, art):
    d.get(url)
    WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "link").text not in ("", "?"))
    d.save_screenshot(f"{art}/host.png")
    off = off_loopback(d, url)
    errors = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
    finish({"ok": not off and not errors, "off_loopback": off, "console_errors": errors,
            "link": d.find_element(By.ID, "link").text, "requests": d.find_element(By.ID, "requests").text})


def link(d, url, art):
    d.get(url)
    def down(d):
        state = d.find_element(By.ID, "link-state").text
        bars = d.find_elements(By.ID, "own-advert-bar")
        left = bars[0].get_attribute("aria-valuenow") if bars else None
        return (state, left) if state not in ("connected", "?", "") and left == "0" else None
    state, left = WebDriverWait(d, 120, poll_frequency=0.2).until(down)
    d.save_screenshot(f"{art}/link-down.png")
    finish({"ok": True, "link": state, "advert_left": left})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--artefacts", required=True)
    p.add_argument("--step", choices=["load", "ask", "link", "host"], required=True)
    p.add_argument("--question", default="hello from the page")
    p.add_argument("--name", default="answer")
    a = p.parse_args()
    d = browser(1280, 900)
    try:
        if a.step == "load":
            load(d, a.url, a.artefacts)
        elif a.step == "host":
            host(d, a.url, a.artefacts)
        elif a.step == "ask":
            ask(d, a.url, a.artefacts, a.question, a.name)
        else:
            link(d, a.url, a.artefacts)
    finally:
        d.quit()


if __name__ == "__main__":
    main()
