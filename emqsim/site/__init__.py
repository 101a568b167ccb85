"""The course as a static site: `pages` writes the pages, `player` the kernel-free figures
(`player.js` swaps their pre-rendered frames). `python -m emqsim.site` runs `pages.main`."""
