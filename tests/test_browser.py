"""A topic page in headless Chromium (Selenium): it draws every event, runs no injected script, and picking
a question shows its panel and fades the other events. Skips when Chromium or its driver is not installed."""

from pathlib import Path

import pytest

from .pages import FLOOD, GATES, IMG, SCRIPT, hostile_page

CHROMIUM, DRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and DRIVER.exists()),
    reason="Chromium is not installed: apt-get install -y chromium chromium-driver",
)


@pytest.fixture
def browser(tmp_path):
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--window-size=1400,900", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    yield driver
    driver.quit()


def test_page_draws_the_graph_and_runs_no_injected_script(browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    page = hostile_page()
    path = tmp_path / "topic.html"
    path.write_text(page.html(), encoding="utf-8")
    browser.get(path.as_uri())
    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return !!(window.network && network.body)"))
    # wait for the layout to settle (physics is switched off once stabilised)
    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return !network.physics.physicsEnabled"))

    assert browser.execute_script("return network.body.data.nodes.length") == page.graph.number_of_nodes()
    assert browser.execute_script("return network.body.data.edges.length") == page.graph.number_of_edges()
    assert browser.execute_script("return Object.keys(network.body.nodes).length") == page.graph.number_of_nodes()
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert not browser.find_elements(By.CSS_SELECTOR, "#panel img, #panel script, div.vis-tooltip img")

    # hovering over the event with the injected <img> shows its full text and evidence as plain text
    gates = page.ids[GATES]
    x, y = browser.execute_script(f"var p = network.canvasToDOM(network.getPositions([{gates}])[{gates}]); return "
                                  "[p.x, p.y];")
    graph = browser.find_element(By.ID, "graph")
    ActionChains(browser).move_to_element_with_offset(graph, 0, 0).perform()
    ActionChains(browser).move_to_element_with_offset(graph, round(x - graph.size["width"] / 2),
                                                      round(y - graph.size["height"] / 2)).perform()
    tooltip = WebDriverWait(browser, 10).until(lambda d: d.find_element(By.CSS_SELECTOR, "div.vis-tooltip").text
                                               or None)
    assert IMG in tooltip and SCRIPT in tooltip

    # picking a question shows its panel, with the injected texts shown as text, and fades events outside it
    Select(browser.find_element(By.ID, "question")).select_by_value("q1")
    panel = browser.find_element(By.CSS_SELECTOR, 'section.explain[data-qid="q1"]')
    assert panel.is_displayed()
    assert not browser.find_element(By.CSS_SELECTOR, 'section.explain[data-qid="q2"]').is_displayed()
    assert SCRIPT in panel.text and "dated 03-15, after the target's (03-07; temporal rule)" in panel.text  # D's why
    assert "excluded(temporal,4,0)" in panel.get_attribute("textContent")  # its rule atoms, folded
    flood = page.ids[FLOOD]
    assert browser.execute_script(f"return network.body.data.nodes.get({flood}).color.background") == "#f4f4f4"
    assert browser.execute_script(f"return network.body.data.nodes.get({gates}).label").startswith("B: ")
    assert browser.execute_script("return typeof window.__pwned") == "undefined"

    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe
    shot = tmp_path / "topic.png"
    browser.save_screenshot(str(shot))
    print(f"screenshot: {shot}")


def test_the_document_events_checkbox_shows_and_hides_them(browser, tmp_path, monkeypatch):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from causalgraph.analysis.analyse import analyse_topic
    from causalgraph.config import DEMO_DATA
    from causalgraph.data import load_split
    from causalgraph.learn.crossval import fit_scorer
    from causalgraph.learn.scorer import EdgeScorer
    from causalgraph.run.batch import answer_topic
    from causalgraph.view import page as page_module

    analysis = analyse_topic(load_split(DEMO_DATA, "sample")[0])
    scores, solution = answer_topic(analysis, fit_scorer(EdgeScorer, [analysis]))
    monkeypatch.setattr(page_module, "DOCUMENT_EVENTS_SHOWN", 0)  # the demo's 10 drawn as a large topic's: hidden
    path = page_module.render_topic(analysis, scores, solution, tmp_path / "demo.html")
    browser.get(path.as_uri())
    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return !!(window.network && network.body)"))
    hidden = ("return network.body.data.nodes.get().filter(function (n) { return n.group === 'document' "
              "&& !n.hidden; }).length")
    told = sum(isinstance(n, tuple) for n in analysis.document_graph())
    assert told and browser.execute_script(hidden) == 0
    browser.find_element(By.ID, "documents").click()
    assert browser.execute_script(hidden) == told
    browser.find_element(By.ID, "documents").click()
    assert browser.execute_script(hidden) == 0
