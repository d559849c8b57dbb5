// One item of "Spot the rule" and its answer (site/js/practice.js): the program, the choices,
// what a wrong choice says, and once answered (now, or earlier in this browser) the rule's
// lines, the explanation, the diff to the good program and the rule's page.

import {
  appendSegments,
  codeBlock,
  element,
  listing,
  paragraph,
  showDiff,
  showProgram,
} from "./dom.js";

// ``answered``: what this browser remembers of an earlier answer ({right, tries}), or nothing.
export function renderItem(item, index, total, answered, record, goNext) {
  var id = "rlt-item-" + item.key;
  var section = element("section", {
    class: "rlt-item",
    "aria-labelledby": id,
    "data-rlt-item": item.key,
  });
  section.appendChild(
    element("h2", { id: id, tabindex: "-1" }, "Program " + (index + 1) + " of " + total)
  );
  var lines = item.lines;
  var program = codeBlock("Program " + (index + 1));
  program.block.classList.add("rlt-program");
  showProgram(program.code, lines, []);
  section.appendChild(program.block);

  var choices = element("fieldset", { class: "rlt-choices" });
  choices.appendChild(element("legend", {}, "Which rule does this break?"));
  var buttons = item.choices.map(function (choice) {
    var button = element("button", {
      type: "button",
      class: "rlt-choice",
      "data-rlt-choice": choice.id,
    });
    button.appendChild(element("span", { class: "rlt-choice__id" }, choice.id));
    button.appendChild(document.createTextNode(" " + choice.title));
    choices.appendChild(button);
    return button;
  });
  section.appendChild(choices);

  var feedback = element("div", { class: "rlt-feedback", "data-rlt-feedback": "" });
  var verdict = element("p", { class: "rlt-verdict", tabindex: "-1", "aria-live": "polite" });
  feedback.appendChild(verdict);
  section.appendChild(feedback);

  var tries = 0;
  var done = false;

  function wrongTries(count) {
    return count > 1 ? " (after " + (count - 1) + " wrong " + (count > 2 ? "tries" : "try") + ")." : ".";
  }

  // The item answered: every choice closed, the rule's lines, the explanation and the diff.
  function finish(opening) {
    done = true;
    var title = "";
    item.choices.forEach(function (choice) {
      if (choice.id === item.answer) title = choice.title;
    });
    buttons.forEach(function (other) {
      other.disabled = true;
      if (other.dataset.rltChoice !== item.answer) return;
      other.classList.add("rlt-choice--right");
      other.appendChild(element("span", { class: "rlt-choice__note" }, " — the rule it breaks"));
    });
    verdict.className = "rlt-verdict rlt-verdict--right";
    verdict.textContent = opening + item.answer + " — " + title;
    showProgram(program.code, lines, item.marked);
    feedback.appendChild(reveal(item, title, goNext, index + 1 < total));
  }

  buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      if (done || button.disabled) return;
      tries += 1;
      var chosen = button.dataset.rltChoice;
      if (chosen !== item.answer) {
        button.disabled = true;
        button.classList.add("rlt-choice--wrong");
        button.appendChild(element("span", { class: "rlt-choice__note" }, " — not this one"));
        verdict.className = "rlt-verdict rlt-verdict--wrong";
        verdict.textContent =
          "Not quite: " + chosen + " is not the rule this program breaks. Choose another.";
        verdict.focus();
        return;
      }
      finish("Right: ");
      verdict.textContent += wrongTries(tries);
      record(item, tries === 1, tries);
      verdict.focus();
    });
  });
  // Answered before (this browser remembers it): shown answered, without taking the focus.
  if (answered) {
    finish("Answered earlier: ");
    section.dataset.rltAnswered = "";
    verdict.textContent += answered.right
      ? " (right at the first try)."
      : answered.tries > 1
        ? wrongTries(answered.tries)
        : ".";
  }
  return section;
}

function reveal(item, title, goNext, hasNext) {
  var box = element("div", { class: "rlt-reveal", "data-rlt-reveal": "" });
  var count = item.marked.length;
  box.appendChild(
    element(
      "p",
      { class: "rlt-reveal__lines" },
      count === 0
        ? "No single line breaks it: the whole program does."
        : "Highlighted in the program above: " +
            (count === 1 ? "line " : "lines ") +
            listing(item.marked) +
            ", where it breaks " +
            item.answer +
            "."
    )
  );
  // A bank item has no title and no good program: its explanation says the correction.
  if (item.title.length) {
    var heading = element("p", { class: "rlt-reveal__title" });
    heading.appendChild(appendSegments(element("strong"), item.title));
    box.appendChild(heading);
  }
  box.appendChild(paragraph(item.explanation, "rlt-reveal__explanation"));

  if (item.good_title) {
    var diff = element("div", { class: "rlt-diff rlt-reveal__diff" });
    var caption = element("p");
    caption.appendChild(element("strong", {}, "The correction: "));
    appendSegments(caption, item.good_title);
    caption.appendChild(document.createTextNode(" (the diff to the good program)"));
    diff.appendChild(caption);
    if (item.diff) {
      var block = codeBlock("The diff from this program to the good one");
      showDiff(block.code, item.diff);
      diff.appendChild(block.block);
    }
    box.appendChild(diff);
  }

  var links = element("p", { class: "rlt-reveal__links" });
  links.appendChild(element("a", { href: item.href }, "Read " + item.answer + " — " + title));
  box.appendChild(links);
  if (hasNext) {
    var next = element("button", { type: "button", class: "rlt-button" }, "Next program");
    next.addEventListener("click", goNext);
    box.appendChild(next);
  }
  return box;
}
