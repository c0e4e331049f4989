// Copy buttons: <button data-copy="ID"> copies the text of the element with that id, and says so for a moment.
(function () {
  "use strict";
  function copied(button, words) {
    var before = button.textContent;
    button.textContent = words;
    setTimeout(function () { button.textContent = before; }, 1600);
  }
  function fallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy]");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var text = source.textContent.trim();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { copied(button, "Copied"); },
        function () { copied(button, fallback(text) ? "Copied" : "Select and copy it"); }
      );
    } else {
      copied(button, fallback(text) ? "Copied" : "Select and copy it");
    }
  });
})();
