// The page's first moments: the top bar is on screen before the app's script has run (it waits
// for the words of the reader's language), so a tap on the settings gear then did nothing. This
// tiny module, with nothing to wait for, keeps such a tap: the settings open once the app has run
// (settings.js, initSettings).
const gear = document.querySelector("[data-testid=settings-btn]");
if (gear) gear.addEventListener("click", () => { if (!gear.dataset.ready) gear.dataset.early = "1"; });
