// The order of "Spot the rule"'s items and what this browser remembers (site/js/practice.js).
// The order is drawn from the "seed" in the page address, so reloading or sharing the address
// gives the same order. Progress (answered, right at the first try) stays in this browser's
// localStorage; nothing is sent anywhere.

var STORE = "rlt-rules.practice";
var SEED_LIMIT = 1000000;

// mulberry32: a small seeded generator, the same sequence in every browser.
function generator(seed) {
  var state = seed >>> 0;
  return function () {
    state = (state + 0x6d2b79f5) >>> 0;
    var t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled(items, seed) {
  var random = generator(seed);
  var order = items.slice();
  for (var i = order.length - 1; i > 0; i -= 1) {
    var j = Math.floor(random() * (i + 1));
    var swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  return order;
}

// The practice bank's items ("bank": true) first, then the lessons' programs, each part in
// the order one seeded shuffle of all the items gives it.
export function practiceOrder(items, seed) {
  var order = shuffled(items, seed);
  return order
    .filter(function (item) {
      return item.bank;
    })
    .concat(
      order.filter(function (item) {
        return !item.bank;
      })
    );
}

export function newSeed() {
  return 1 + Math.floor(Math.random() * (SEED_LIMIT - 1));
}

export function addressSeed() {
  var value = new URLSearchParams(window.location.search).get("seed") || "";
  return /^[0-9]{1,6}$/.test(value) && Number(value) > 0 ? Number(value) : null;
}

export function keepSeed(seed) {
  var query = new URLSearchParams(window.location.search);
  query.set("seed", String(seed));
  var address = window.location.pathname + "?" + query.toString() + window.location.hash;
  window.history.replaceState(window.history.state, "", address);
}

export function loadProgress() {
  try {
    var stored = JSON.parse(window.localStorage.getItem(STORE) || "{}");
    return stored && typeof stored === "object" ? stored : {};
  } catch (error) {
    return {};
  }
}

export function saveProgress(progress) {
  try {
    window.localStorage.setItem(STORE, JSON.stringify(progress));
  } catch (error) {
    // Storage off or full: the practice still works, it just forgets.
  }
}
