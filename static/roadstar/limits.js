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
    var text = number(used) + " of " + number(limit) + " characters" +
      (over ? ": " + number(used - limit) + " too many" : "");
    // Only a real change is written: writing the counter is itself a change the MutationObserver below sees, and
    // rewriting the same text made it call itself forever, so a page with a counter never finished loading.
    if (counter.textContent !== text) counter.textContent = text;
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
  // The live pages put new forms in place: count those too.
  new MutationObserver(function () { all(); }).observe(document.documentElement, { childList: true, subtree: true });
})();
