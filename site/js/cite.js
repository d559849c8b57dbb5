// "Copy link" and "Copy citation" beside each trigger, the impact, the correction and each
// example of a rule page (markers: tools/rlt_rules/site/cite.py). The link is the published,
// versioned address (<meta name="rlt-published">: site_url + version) of this page and the
// item's anchor, never the search's ?h=. Rule text is only ever set as text.
(function () {
  "use strict";

  function published() {
    var meta = document.querySelector('meta[name="rlt-published"]');
    return meta ? meta.getAttribute("content") : "";
  }

  // The site root as served (Material's __config "base" leads there).
  function servedRoot() {
    var config = document.getElementById("__config");
    var base = config ? JSON.parse(config.textContent).base : ".";
    return new URL(base.replace(/\/?$/, "/"), location.href);
  }

  // This page's path below the site root.
  function pagePath() {
    var root = servedRoot().pathname;
    var path = location.pathname;
    return path.indexOf(root) === 0 ? path.slice(root.length) : path.replace(/^\//, "");
  }

  function escapeMarkdown(text) {
    return text.replace(/[\\[\]]/g, "\\$&");
  }

  function button(text, name, copied) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "rlt-cite__button";
    b.textContent = text;
    b.setAttribute("aria-label", name);
    b.dataset.copy = copied;
    b.addEventListener("click", function () {
      var done = function () {
        b.dataset.copied = "true";
        b.textContent = "Copied";
        setTimeout(function () {
          b.textContent = text;
          delete b.dataset.copied;
        }, 2000);
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(copied).then(done, function () {});
      }
    });
    return b;
  }

  function fill() {
    // Without a site_url (a local build), the address this copy is served at.
    var base = published() || servedRoot().href;
    var path = pagePath();
    var markers = document.querySelectorAll(".rlt-cite[data-rlt-anchor]:not([data-rlt-filled])");
    for (var i = 0; i < markers.length; i += 1) {
      var marker = markers[i];
      var label = marker.dataset.rltCite;
      var rule = marker.dataset.rltRule;
      var url = base + path + "#" + marker.dataset.rltAnchor;
      var citation = "[" + escapeMarkdown(rule + ", " + label) + "](" + url + ")";
      marker.dataset.rltFilled = "true";
      marker.appendChild(button("Copy link", "Copy link to " + rule + " " + label, url));
      marker.appendChild(
        button("Copy citation", "Copy citation of " + rule + " " + label + " as Markdown", citation)
      );
    }
  }

  // The outdated-version banner's link to this page in the latest version (overrides/main.html)
  // keeps the fragment the reader is at: a cited trigger stays cited.
  function keepFragment() {
    var links = document.querySelectorAll("a[data-rlt-latest]");
    for (var i = 0; i < links.length; i += 1) {
      links[i].href = links[i].href.split("#")[0] + location.hash;
    }
  }

  function start() {
    fill();
    keepFragment();
  }

  window.addEventListener("hashchange", keepFragment);
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(start);
  else document.addEventListener("DOMContentLoaded", start);
})();
