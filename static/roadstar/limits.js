// A field with data-limit shows how much of its limit is used, as the owner types: "1,204 of 4,000 characters",
// and past the limit, how many too many. The field is never cut (no maxlength): the server refuses what is too
// long and gives it back, so nothing typed is lost.
(function () {
  "use strict";
  function number(n) { return n.toLocaleString("en-US"); }
  function update(field) {
    var limit = parseInt(field.getAttribute("data-limit"), 10);
    var counter = document.getElementById(field.id + "-count");
    if (!counter || !limit) return;
    var used = field.value.length;
    var over = used > limit;
    var words = number(used) + " of " + number(limit) + " characters" +
      (over ? ": " + number(used - limit) + " too many" : "");
    // Only a change is written: a write is itself a mutation, and the observer below must come to rest.
    if (counter.textContent !== words) counter.textContent = words;
    if (counter.classList.contains("limit-count--over") !== over) counter.classList.toggle("limit-count--over", over);
  }
  function all(root) {
    var fields = (root || document).querySelectorAll("[data-limit]");
    for (var i = 0; i < fields.length; i++) update(fields[i]);
  }
  document.addEventListener("input", function (event) {
    if (event.target.hasAttribute && event.target.hasAttribute("data-limit")) update(event.target);
  });
  document.addEventListener("DOMContentLoaded", function () { all(); });
  // The live pages put new forms in place: count those too (only when a form with a limit was added).
  new MutationObserver(function (records) {
    for (var i = 0; i < records.length; i++) {
      var added = records[i].addedNodes;
      for (var j = 0; j < added.length; j++) {
        var node = added[j];
        if (node.nodeType === 1 && (node.hasAttribute("data-limit") || node.querySelector("[data-limit]"))) {
          all(node.parentNode || document);
          return;
        }
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
