/* Roadstar's live pages (Home and the chats), with no framework.

   One websocket (/ws/home/) per page, in the owner's workspace group. A message says only what changed
   ({what, conversation}); each region of the page marked data-live-src fetches its fresh HTML over plain HTTP
   and swaps it in part by part (data-live-part). A part the owner is typing in is not thrown away: its keyed list
   items (data-live-list > [data-key]) are merged around the item being written in. Without JavaScript every
   form still posts and the page reloads as usual.

   <html data-live-socket="open|closed"> says whether the socket is up (the browser tests wait on it). */
(function () {
  "use strict";

  var regions = Array.prototype.slice.call(document.querySelectorAll("[data-live-src]"));
  var clockOffset = 0; // the server's clock minus this one, for countdowns
  var retries = 0;
  var THROTTLE_MS = 120;

  function each(list, fn) { Array.prototype.forEach.call(list, fn); }

  // --- swapping in fresh HTML ------------------------------------------------------------------------------

  function isWriting(el) {
    var active = document.activeElement;
    if (active && el.contains(active) && /^(TEXTAREA|INPUT|SELECT)$/.test(active.tagName)) return true;
    var fields = el.querySelectorAll("textarea, input[type=text], input:not([type])");
    for (var i = 0; i < fields.length; i++) {
      if (fields[i].value !== fields[i].defaultValue) return true;
    }
    return false;
  }

  function mergeList(oldList, newList) {
    var oldByKey = {};
    each(oldList.children, function (child) { if (child.dataset.key) oldByKey[child.dataset.key] = child; });
    var wanted = [];
    each(newList.children, function (child) {
      var old = child.dataset.key && oldByKey[child.dataset.key];
      wanted.push(old && isWriting(old) ? old : child);
    });
    each(Array.prototype.slice.call(oldList.children), function (child) {
      if (wanted.indexOf(child) < 0) child.remove();
    });
    wanted.forEach(function (node, i) {
      var at = oldList.children[i];
      if (at !== node) oldList.insertBefore(node, at || null);
    });
  }

  // What the owner opened stays open through a refresh: the fresh HTML has every finished piece of work folded, and
  // a live update (a held email going, another agent's line) would otherwise close the one being read.
  function keepOpen(old, part) {
    each(old.querySelectorAll("[data-key] > details[open]"), function (details) {
      var key = details.parentElement.getAttribute("data-key");
      var fresh = part.querySelector('[data-key="' + (window.CSS && CSS.escape ? CSS.escape(key) : key) + '"] > details');
      if (fresh) fresh.open = true;
    });
  }

  function patch(region, html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    each(template.content.querySelectorAll("[data-live-part]"), function (part) {
      var name = part.getAttribute("data-live-part");
      var old = region.querySelector('[data-live-part="' + name + '"]');
      if (!old) { region.appendChild(part); return; }
      keepOpen(old, part);
      if (!isWriting(old)) { old.replaceWith(part); return; }
      var oldLists = old.querySelectorAll("[data-live-list]");
      var newLists = part.querySelectorAll("[data-live-list]");
      if (oldLists.length === newLists.length) {
        for (var i = 0; i < oldLists.length; i++) mergeList(oldLists[i], newLists[i]);
      }
      // Otherwise the part keeps its form until the owner is done; the next refresh brings the rest.
    });
    var chat = region.querySelector("[data-chat-id]");
    if (chat && chat.getAttribute("data-chat-id")) {
      region.setAttribute("data-live-conversation", chat.getAttribute("data-chat-id"));
    }
    readClock(region);
  }

  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120;
  }

  function refresh(region) {
    region._timer = null;
    if (region._inflight) { region._again = true; return; }
    region._inflight = true;
    var stick = region.id === "chat-live" && nearBottom();
    fetch(region.getAttribute("data-live-src"), {
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch" },
      cache: "no-store"
    }).then(function (response) {
      if (response.redirected || response.status === 401 || response.status === 403) {
        window.location.reload(); // signed out: the full page goes to sign-in
        throw new Error("signed out");
      }
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    }).then(function (html) {
      patch(region, html);
      if (stick) window.scrollTo(0, document.documentElement.scrollHeight);
    }).catch(function () { /* the next message or reconnect refreshes again */ }).then(function () {
      region._inflight = false;
      if (region._again) { region._again = false; schedule(region); }
    });
  }

  function schedule(region) {
    if (!region._timer) region._timer = setTimeout(function () { refresh(region); }, THROTTLE_MS);
  }

  function wants(region, message) {
    var on = (region.getAttribute("data-live-on") || "").split(/\s+/);
    if (on.indexOf(message.what) < 0) return false;
    if (message.what === "chat" && region.hasAttribute("data-live-conversation")) {
      var mine = region.getAttribute("data-live-conversation");
      return !mine || message.conversation === mine;
    }
    return true;
  }

  // --- the socket ------------------------------------------------------------------------------------------

  function setState(text, open) {
    document.documentElement.setAttribute("data-live-socket", open ? "open" : "closed");
    each(document.querySelectorAll("[data-live-state]"), function (el) { el.textContent = text; });
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket;
    try {
      socket = new WebSocket(scheme + window.location.host + "/ws/home/");
    } catch (error) {
      setState("Not live: reload the page to see new work.", false);
      return;
    }
    socket.onopen = function () {
      setState("", true);
      // Catch up on what happened before the socket joined the workspace's group: while it was down, and on the
      // first open too, since a worker's reply committed between the page being rendered and this moment was
      // told to nobody (a page opened just after answering an ask missed the agent's reply that way).
      regions.forEach(schedule);
      retries = 0;
    };
    socket.onmessage = function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (error) { return; }
      if (!message || !message.what) return;
      regions.forEach(function (region) { if (wants(region, message)) schedule(region); });
    };
    socket.onclose = function (event) {
      if (event.code === 4401 || event.code === 4403) {
        setState("Not live: sign in again to see new work as it happens.", false);
        return;
      }
      retries += 1;
      setState(retries > 2 ? "Reconnecting…" : "", false);
      setTimeout(connect, Math.min(10000, 250 * Math.pow(2, retries)));
    };
  }

  // --- held lines: a live countdown ------------------------------------------------------------------------

  function readClock(root) {
    var el = root.querySelector("[data-now-ms]");
    if (el) clockOffset = Number(el.getAttribute("data-now-ms")) - Date.now();
  }

  function tick() {
    var now = Date.now() + clockOffset;
    each(document.querySelectorAll("[data-held-until-ms]"), function (el) {
      var left = Math.max(0, Math.ceil((Number(el.getAttribute("data-held-until-ms")) - now) / 1000));
      el.textContent = left > 0 ? Math.floor(left / 60) + ":" + ("0" + (left % 60)).slice(-2) : "sending…";
      if (left === 0 && !el._gone) {
        el._gone = true;
        setTimeout(function () { regions.forEach(schedule); }, 1500);
      }
    });
  }

  // --- writing in a chat without a reload ------------------------------------------------------------------

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-live-send") || !window.fetch) return;
    event.preventDefault();
    var data = new FormData(form);
    var button = form.querySelector("button[type=submit]");
    var error = form.querySelector("[data-live-send-error]");
    if (button) button.disabled = true;
    fetch(form.action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch", "X-CSRFToken": data.get("csrfmiddlewaretoken") || "" }
    }).then(function (response) {
      if (response.status === 204) {
        form.reset();
        // reset() fires no input event: tell the character counter (limits.js) the box is empty again
        var counted = form.querySelectorAll("[data-limit]");
        for (var i = 0; i < counted.length; i++) counted[i].dispatchEvent(new Event("input", { bubbles: true }));
        if (error) error.textContent = "";
        regions.forEach(refresh);
        return;
      }
      if (response.redirected) { window.location.reload(); return; }
      return response.text().then(function (text) {
        if (error) error.textContent = text || "Couldn't send; try again.";
      });
    }).catch(function () {
      if (error) error.textContent = "Couldn't send; check the connection and try again.";
    }).then(function () {
      if (button) button.disabled = false;
      var box = form.querySelector("textarea");
      if (box) box.focus();
    });
  });

  document.addEventListener("keydown", function (event) {
    // Enter sends in a chat; Shift+Enter makes a new line.
    var box = event.target;
    if (event.key !== "Enter" || event.shiftKey || event.isComposing || box.tagName !== "TEXTAREA") return;
    var form = box.form;
    if (form && form.hasAttribute("data-live-send") && box.value.trim()) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // --- start -----------------------------------------------------------------------------------------------

  readClock(document);
  tick();
  setInterval(tick, 1000);
  if (document.getElementById("chat-live")) window.scrollTo(0, document.documentElement.scrollHeight);
  window.addEventListener("pageshow", function (event) { if (event.persisted) regions.forEach(schedule); });
  if (regions.length && "WebSocket" in window) connect();
})();
