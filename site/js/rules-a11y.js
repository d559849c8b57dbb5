// Accessibility fixes for markup that Material's JavaScript creates (its templates are
// overridden in tools/rlt_rules/site/overrides instead). Checked with axe-core by
// tests/test_browser.py.
(function () {
  "use strict";

  // Material puts each code block's copy button in a <nav class="md-code__nav">, and each
  // search result's tags in a <nav class="md-tags">: a rule page had a dozen unnamed
  // navigation landmarks (axe: landmark-unique) holding one button or a few tags. They are
  // containers, not landmarks.
  var CONTAINERS = "nav.md-code__nav:not([role]), .md-search-result nav.md-tags:not([role])";

  function unlandmark() {
    var navs = document.querySelectorAll(CONTAINERS);
    for (var i = 0; i < navs.length; i += 1) navs[i].setAttribute("role", "none");
  }

  // A table wider than the screen scrolls inside Material's wrapper: keyboard users reach
  // it with Tab (axe: scrollable-region-focusable). Only while it does scroll.
  function scrollableTables() {
    var wraps = document.querySelectorAll(".md-typeset__scrollwrap");
    for (var i = 0; i < wraps.length; i += 1) {
      var wrap = wraps[i];
      if (wrap.scrollWidth > wrap.clientWidth + 1) {
        if (!wrap.hasAttribute("tabindex")) wrap.setAttribute("tabindex", "0");
        wrap.dataset.rltScrolls = "true";
      } else if (wrap.dataset.rltScrolls) {
        wrap.removeAttribute("tabindex");
        delete wrap.dataset.rltScrolls;
      }
    }
  }

  function fix() {
    unlandmark();
    scrollableTables();
  }

  var pending = false;
  function later() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      fix();
    });
  }

  fix();
  if (window.MutationObserver) {
    new MutationObserver(function () {
      unlandmark(); // at once: before anything reads the landmarks
      later();
    }).observe(document.body, { childList: true, subtree: true });
  }
  window.addEventListener("resize", later);
})();
