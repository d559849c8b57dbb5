// Long lines of code wrap instead of scrolling sideways (site/css/rules.css, "Every line
// visible"). A wrapped line's continuation rows start under the line's own indentation, after
// a continuation mark: each line gets its leading spaces as --rlt-indent (in a diff, those after
// the "-", "+" or " " column). Without this script the rows start at the left edge, still
// marked. Lines are the spans pymdownx.highlight writes (line_spans); the practice's lines
// (site/js/practice.js) get theirs where they are made.
(function () {
  "use strict";

  var LINES = ".highlight code > span[id^='__span-']";

  function indent(root) {
    var lines = (root || document).querySelectorAll(LINES);
    for (var i = 0; i < lines.length; i += 1) {
      var line = lines[i];
      if (line.dataset.rltIndented) continue;
      line.dataset.rltIndented = "";
      var text = line.textContent;
      if (line.closest(".rlt-diff, .language-diff")) text = text.slice(1);
      var spaces = /^ */.exec(text)[0].length;
      if (spaces && spaces < text.replace(/\n$/, "").length) {
        line.style.setProperty("--rlt-indent", spaces + "ch");
      }
    }
  }

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(function () {
      indent(document);
    });
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () {
      indent(document);
    });
  } else {
    indent(document);
  }
})();
