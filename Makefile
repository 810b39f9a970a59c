# parallaxd: build, install, uninstall (README.md "Install", docs/operations.md).
#
#   make                          release build, Swift runtime linked statically
#   sudo make install             into /usr/local (binaries, units, udev rule, sysusers, man, completions)
#                                 (debian/ builds the Debian packages from `make install-files`)
#   sudo make install-strip       the same with stripped binaries
#   make install DESTDIR=/tmp/pkg PREFIX=/usr      staged, for a package
#   make install BUILT_BINDIR=.build/debug          install binaries built elsewhere, skip the build
#   sudo make uninstall           the same variables as install
#   make completions              regenerate completions/ from the built binaries
#
# Paths the programs themselves use do not move with PREFIX: the config is /etc/parallaxd,
# the socket /run/parallaxd, the calibration /var/lib/parallaxd.

PREFIX       ?= /usr/local
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
# The shared library and parallax.pc go to the multiarch directory where the toolchain has one
# (Debian: lib/x86_64-linux-gnu, searched by ld.so and pkg-config under /usr and /usr/local alike),
# else to lib/. Units, rules, sysusers and the udev helper are looked up under PREFIX/lib itself.
ifeq ($(origin MULTIARCH),undefined)
MULTIARCH    := $(shell $(CC) -print-multiarch 2>/dev/null)
endif
LIBDIR       ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
SYSTEMLIBDIR ?= $(PREFIX)/lib
DATADIR      ?= $(PREFIX)/share
MANDIR       ?= $(DATADIR)/man
DOCDIR       ?= $(DATADIR)/doc/parallaxd
SYSCONFDIR   ?= /etc
UNITDIR      ?= $(SYSTEMLIBDIR)/systemd/system
USERUNITDIR  ?= $(SYSTEMLIBDIR)/systemd/user
AUTOSTARTDIR ?= $(SYSCONFDIR)/xdg/autostart
UDEVRULESDIR ?= $(SYSTEMLIBDIR)/udev/rules.d
SYSUSERSDIR  ?= $(SYSTEMLIBDIR)/sysusers.d
HELPERDIR    ?= $(SYSTEMLIBDIR)/parallaxd
SCENEDIR     ?= $(DATADIR)/parallax-wallpaper/scenes
BASHCOMPDIR  ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR   ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPDIR  ?= $(DATADIR)/fish/vendor_completions.d

SWIFT             ?= swift
SCRATCH           ?= .build
SWIFT_BUILD_FLAGS ?= -c release --static-swift-stdlib
# Where the binaries are: the release build's bin directory unless given.
BUILT_BINDIR      ?=
BIN               := $(if $(BUILT_BINDIR),$(BUILT_BINDIR),$(SCRATCH)/release)

# A path as one shell word (single quotes, a ' inside written '\''): a clone's, a DESTDIR or a
# build directory may hold spaces or quotes. $(call dest,DIR) is DIR under DESTDIR, quoted.
q    = '$(subst ','\'',$(1))'
dest = $(call q,$(DESTDIR)$(1))

INSTALL      ?= install
# `make install-strip` passes -s here (about 30 MB → 16 MB per binary); packagers strip themselves.
INSTALL_PROGRAM ?= $(INSTALL) -m 0755
PROGRAMS     := parallaxd parallaxctl parallax-wallpaper
CONFIG_FILE  := $(DESTDIR)$(SYSCONFDIR)/parallaxd/parallaxd.conf
# parallax-wallpaper's example scenes, which the user unit's documentation points to.
SCENES       := $(wildcard examples/scenes/*.conf)
SCENE_IMAGES := $(wildcard examples/scenes/images/*.png)

# Paths written into the installed units and udev rule, so they name where things really are.
SUBSTITUTE = sed -e 's|/usr/bin/parallaxd|$(BINDIR)/parallaxd|g' \
                 -e 's|/usr/bin/parallax-wallpaper|$(BINDIR)/parallax-wallpaper|g' \
                 -e 's|/usr/share/parallax-wallpaper/scenes|$(SCENEDIR)|g' \
                 -e 's|/usr/lib/parallaxd/|$(HELPERDIR)/|g' \
                 -e 's|file:///usr/share/doc/parallaxd/|file://$(DOCDIR)/|g'

.PHONY: all build install install-strip install-files post-install uninstall completions clean

all: build

build:
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --scratch-path $(call q,$(SCRATCH)) --product parallaxd
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --scratch-path $(call q,$(SCRATCH)) --product parallaxctl
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --scratch-path $(call q,$(SCRATCH)) --product parallax-wallpaper

install: $(if $(BUILT_BINDIR),,build)
	$(MAKE) --no-print-directory install-files post-install

install-files:
	@for p in $(PROGRAMS); do test -x $(call q,$(BIN))/"$$p" || { echo "make: "$(call q,$(BIN))/"$$p is not built" >&2; exit 1; }; done
	$(INSTALL) -d $(call dest,$(BINDIR)) $(call dest,$(UNITDIR)) $(call dest,$(USERUNITDIR)) $(call dest,$(UDEVRULESDIR)) \
		$(call dest,$(SYSUSERSDIR)) $(call dest,$(SCENEDIR)/images) \
		$(call dest,$(HELPERDIR)) $(call dest,$(MANDIR)/man1) $(call dest,$(MANDIR)/man8) $(call dest,$(DOCDIR)) \
		$(call dest,$(BASHCOMPDIR)) $(call dest,$(ZSHCOMPDIR)) $(call dest,$(FISHCOMPDIR)) \
		$(call dest,$(SYSCONFDIR)/parallaxd/parallaxd.conf.d) $(call dest,$(UNITDIR)/iio-sensor-proxy.service.d) \
		$(call dest,$(AUTOSTARTDIR))
	$(INSTALL_PROGRAM) $(foreach p,$(PROGRAMS),$(call q,$(BIN)/$(p))) $(call dest,$(BINDIR)/)
	$(SUBSTITUTE) systemd/parallaxd.service > $(call dest,$(UNITDIR)/parallaxd.service)
	$(SUBSTITUTE) systemd/parallaxd.socket > $(call dest,$(UNITDIR)/parallaxd.socket)
	$(SUBSTITUTE) systemd/61-parallaxd.rules > $(call dest,$(UDEVRULESDIR)/61-parallaxd.rules)
	$(SUBSTITUTE) systemd/parallax-wallpaper.service > $(call dest,$(USERUNITDIR)/parallax-wallpaper.service)
	@# Phosh sessions without systemd (gnome-session --builtin) start the wallpaper from here.
	$(SUBSTITUTE) systemd/parallax-wallpaper-autostart.desktop > $(call dest,$(AUTOSTARTDIR)/parallax-wallpaper.desktop)
	$(SUBSTITUTE) systemd/iio-sensor-proxy-parallaxd.conf > $(call dest,$(UNITDIR)/iio-sensor-proxy.service.d/parallaxd.conf)
	chmod 0644 $(call dest,$(UNITDIR)/parallaxd.service) $(call dest,$(UNITDIR)/parallaxd.socket) \
		$(call dest,$(UNITDIR)/iio-sensor-proxy.service.d/parallaxd.conf) \
		$(call dest,$(UDEVRULESDIR)/61-parallaxd.rules) $(call dest,$(USERUNITDIR)/parallax-wallpaper.service) \
		$(call dest,$(AUTOSTARTDIR)/parallax-wallpaper.desktop)
	$(INSTALL) -m 0644 $(SCENES) $(call dest,$(SCENEDIR)/)
	$(INSTALL) -m 0644 $(SCENE_IMAGES) $(call dest,$(SCENEDIR)/images/)
	$(INSTALL) -m 0644 systemd/parallaxd.sysusers $(call dest,$(SYSUSERSDIR)/parallaxd.conf)
	$(INSTALL) -m 0755 systemd/parallaxd-iio-access $(call dest,$(HELPERDIR)/parallaxd-iio-access)
	$(INSTALL) -m 0755 systemd/parallaxd-before-sensor-proxy $(call dest,$(HELPERDIR)/parallaxd-before-sensor-proxy)
	$(INSTALL) -m 0644 docs/man/parallaxd.8 $(call dest,$(MANDIR)/man8/parallaxd.8)
	$(INSTALL) -m 0644 docs/man/parallaxctl.1 $(call dest,$(MANDIR)/man1/parallaxctl.1)
	$(INSTALL) -m 0644 docs/man/parallax-wallpaper.1 $(call dest,$(MANDIR)/man1/parallax-wallpaper.1)
	$(INSTALL) -m 0644 README.md docs/operations.md $(call dest,$(DOCDIR)/)
	@# bash-completion sources these files: swift-argument-parser's #!/bin/bash line is dropped.
	sed '1{/^#!/d;}' completions/parallaxd.bash > $(call dest,$(BASHCOMPDIR)/parallaxd)
	sed '1{/^#!/d;}' completions/parallaxctl.bash > $(call dest,$(BASHCOMPDIR)/parallaxctl)
	chmod 0644 $(call dest,$(BASHCOMPDIR)/parallaxd) $(call dest,$(BASHCOMPDIR)/parallaxctl)
	$(INSTALL) -m 0644 completions/_parallaxd completions/_parallaxctl $(call dest,$(ZSHCOMPDIR)/)
	$(INSTALL) -m 0644 completions/parallaxd.fish completions/parallaxctl.fish $(call dest,$(FISHCOMPDIR)/)
	@# An administrator's edited config is never overwritten.
	@if [ -e $(call q,$(CONFIG_FILE)) ]; then echo "keeping "$(call q,$(CONFIG_FILE)); \
	 else echo "$(INSTALL) -m 0644 config/parallaxd.conf "$(call q,$(CONFIG_FILE)); $(INSTALL) -m 0644 config/parallaxd.conf $(call q,$(CONFIG_FILE)); fi

install-strip:
	$(MAKE) --no-print-directory install INSTALL_PROGRAM='$(INSTALL) -s -m 0755'

# On the live system only (no DESTDIR): create the accounts, let udev and systemd see the new files.
post-install:
	@if [ -z $(call q,$(DESTDIR)) ] && [ "$$(id -u)" = 0 ]; then \
	  command -v systemd-sysusers >/dev/null && systemd-sysusers $(call q,$(SYSUSERSDIR)/parallaxd.conf); \
	  [ -d /run/systemd/system ] && systemctl daemon-reload; \
	  command -v udevadm >/dev/null && udevadm control --reload && udevadm trigger --subsystem-match=iio --action=add; \
	  echo "installed; start it with: systemctl enable --now parallaxd.socket"; \
	fi; true

uninstall:
	rm -f $(foreach p,$(PROGRAMS),$(call dest,$(BINDIR)/$(p)))
	rm -f $(call dest,$(UNITDIR)/parallaxd.service) $(call dest,$(UNITDIR)/parallaxd.socket)
	rm -f $(call dest,$(USERUNITDIR)/parallax-wallpaper.service) $(call dest,$(AUTOSTARTDIR)/parallax-wallpaper.desktop)
	rm -f $(foreach f,$(notdir $(SCENES)),$(call dest,$(SCENEDIR)/$(f))) $(foreach f,$(notdir $(SCENE_IMAGES)),$(call dest,$(SCENEDIR)/images/$(f)))
	rm -f $(call dest,$(UDEVRULESDIR)/61-parallaxd.rules) $(call dest,$(SYSUSERSDIR)/parallaxd.conf)
	rm -f $(call dest,$(HELPERDIR)/parallaxd-iio-access) $(call dest,$(HELPERDIR)/parallaxd-before-sensor-proxy)
	rm -f $(call dest,$(UNITDIR)/iio-sensor-proxy.service.d/parallaxd.conf)
	-rmdir $(call dest,$(UNITDIR)/iio-sensor-proxy.service.d) 2>/dev/null
	rm -f $(call dest,$(MANDIR)/man8/parallaxd.8) $(call dest,$(MANDIR)/man1/parallaxctl.1) $(call dest,$(MANDIR)/man1/parallax-wallpaper.1)
	rm -f $(call dest,$(DOCDIR)/README.md) $(call dest,$(DOCDIR)/operations.md)
	rm -f $(call dest,$(BASHCOMPDIR)/parallaxd) $(call dest,$(BASHCOMPDIR)/parallaxctl)
	rm -f $(call dest,$(ZSHCOMPDIR)/_parallaxd) $(call dest,$(ZSHCOMPDIR)/_parallaxctl)
	rm -f $(call dest,$(FISHCOMPDIR)/parallaxd.fish) $(call dest,$(FISHCOMPDIR)/parallaxctl.fish)
	@# The config goes only if nobody changed it; the calibration in /var/lib/parallaxd stays.
	@if [ -e $(call q,$(CONFIG_FILE)) ] && cmp -s config/parallaxd.conf $(call q,$(CONFIG_FILE)); then rm -f $(call q,$(CONFIG_FILE)); \
	 elif [ -e $(call q,$(CONFIG_FILE)) ]; then echo "keeping the edited "$(call q,$(CONFIG_FILE)); fi
	-rmdir $(call dest,$(HELPERDIR)) $(call dest,$(DOCDIR)) $(call dest,$(SCENEDIR)/images) $(call dest,$(SCENEDIR)) \
		$(call dest,$(DATADIR)/parallax-wallpaper) $(call dest,$(SYSCONFDIR)/parallaxd/parallaxd.conf.d) \
		$(call dest,$(SYSCONFDIR)/parallaxd) 2>/dev/null
	@if [ -z $(call q,$(DESTDIR)) ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; true

# The committed completion scripts for parallaxctl, generated by swift-argument-parser from the
# binary. parallaxd's are hand-written (it parses its own command line; see DaemonCommandLine).
completions:
	@for p in $(PROGRAMS); do test -x $(call q,$(BIN))/"$$p" || { echo "make: build first ("$(call q,$(BIN))/"$$p)" >&2; exit 1; }; done
	$(call q,$(BIN)/parallaxctl) --generate-completion-script bash > completions/parallaxctl.bash
	$(call q,$(BIN)/parallaxctl) --generate-completion-script zsh > completions/_parallaxctl
	$(call q,$(BIN)/parallaxctl) --generate-completion-script fish > completions/parallaxctl.fish

clean:
	$(SWIFT) package --scratch-path $(call q,$(SCRATCH)) clean

# ---------------------------------------------------------------------------------------------
# libparallax, the C client library (Sources/libparallax, docs/client-kit.md): C11 and libc only,
# soname libparallax.so.1, only px_ symbols exported (libparallax.map).
#
#   make libparallax              build into $(LIBPX_BUILD) (also part of `make` and `make install`)
#   make install-libparallax      header, library, parallax.pc and libparallax(3) alone

INCLUDEDIR      ?= $(PREFIX)/include
PKGCONFIGDIR    ?= $(LIBDIR)/pkgconfig
LIBPX_VERSION   := 1.0.0
LIBPX_SONAME    := libparallax.so.1
LIBPX_BUILD     ?= .build-libparallax
LIBPX_CFLAGS    ?= -O2 -g
LIBPX_SRC       := Sources/libparallax
LIBPX_OBJECTS   := $(patsubst $(LIBPX_SRC)/%.c,$(LIBPX_BUILD)/%.o,$(wildcard $(LIBPX_SRC)/*.c))
LIBPX_LIBRARY   := $(LIBPX_BUILD)/libparallax.so.$(LIBPX_VERSION)
LIBPX_WARNINGS  := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# parallax.pc names directories under the prefix as ${prefix}/…, so `pkg-config --define-prefix` works.
LIBPX_UNDER_PREFIX = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

.PHONY: libparallax install-libparallax uninstall-libparallax clean-libparallax

all: libparallax
install-files: install-libparallax
uninstall: uninstall-libparallax
clean: clean-libparallax

libparallax: $(LIBPX_LIBRARY)

$(LIBPX_BUILD)/%.o: $(LIBPX_SRC)/%.c $(wildcard $(LIBPX_SRC)/*.h) | $(LIBPX_BUILD)
	$(CC) $(LIBPX_WARNINGS) $(LIBPX_CFLAGS) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(LIBPX_LIBRARY): $(LIBPX_OBJECTS) $(LIBPX_SRC)/libparallax.map
	$(CC) -shared $(LIBPX_CFLAGS) $(CFLAGS) $(LDFLAGS) -Wl,-soname,$(LIBPX_SONAME) \
		-Wl,--version-script=$(LIBPX_SRC)/libparallax.map -Wl,-z,defs -o $@ $(LIBPX_OBJECTS)
	ln -sf libparallax.so.$(LIBPX_VERSION) $(LIBPX_BUILD)/$(LIBPX_SONAME)
	ln -sf $(LIBPX_SONAME) $(LIBPX_BUILD)/libparallax.so

$(LIBPX_BUILD):
	mkdir -p $@

install-libparallax: $(LIBPX_LIBRARY)
	$(INSTALL) -d $(call dest,$(INCLUDEDIR)) $(call dest,$(LIBDIR)) $(call dest,$(PKGCONFIGDIR)) $(call dest,$(MANDIR)/man3)
	$(INSTALL) -m 0644 $(LIBPX_SRC)/parallax.h $(call dest,$(INCLUDEDIR)/parallax.h)
	$(INSTALL_PROGRAM) $(LIBPX_LIBRARY) $(call dest,$(LIBDIR)/libparallax.so.$(LIBPX_VERSION))
	ln -sf libparallax.so.$(LIBPX_VERSION) $(call dest,$(LIBDIR)/$(LIBPX_SONAME))
	ln -sf $(LIBPX_SONAME) $(call dest,$(LIBDIR)/libparallax.so)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(call LIBPX_UNDER_PREFIX,$(INCLUDEDIR))|' \
		-e 's|@LIBDIR@|$(call LIBPX_UNDER_PREFIX,$(LIBDIR))|' \
		-e 's|@VERSION@|$(LIBPX_VERSION)|' $(LIBPX_SRC)/parallax.pc.in > $(call dest,$(PKGCONFIGDIR)/parallax.pc)
	chmod 0644 $(call dest,$(PKGCONFIGDIR)/parallax.pc)
	$(INSTALL) -m 0644 docs/man/libparallax.3 $(call dest,$(MANDIR)/man3/libparallax.3)
	@if [ -z $(call q,$(DESTDIR)) ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi; true

uninstall-libparallax:
	rm -f $(call dest,$(INCLUDEDIR)/parallax.h) $(call dest,$(PKGCONFIGDIR)/parallax.pc) $(call dest,$(MANDIR)/man3/libparallax.3)
	rm -f $(call dest,$(LIBDIR)/libparallax.so) $(call dest,$(LIBDIR)/$(LIBPX_SONAME)) \
		$(call dest,$(LIBDIR)/libparallax.so.$(LIBPX_VERSION))
	-rmdir $(call dest,$(PKGCONFIGDIR)) 2>/dev/null

# ---------------------------------------------------------------------------------------------
# parallax, the Python client module (Sources/python/parallax, docs/client-kit.md "Python"): pure
# Python, copied into the interpreter's module path. (`pip install .` reads pyproject.toml instead.)
#
#   make install-python           the module alone (also part of `make install`)
#
# Debian's python3 reads packaged modules from /usr/lib/python3/dist-packages but local ones from
# /usr/local/lib/python3.X/dist-packages: there is no version-independent local directory.

PYTHON          ?= $(firstword $(wildcard /usr/bin/python3) python3)
PYTHON_VERSION   = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PYTHONDIR       ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYTHON_VERSION)/dist-packages)
PY_MODULES      := $(wildcard Sources/python/parallax/*.py)

.PHONY: install-python uninstall-python

install-files: install-python
uninstall: uninstall-python

install-python:
	$(INSTALL) -d $(call dest,$(PYTHONDIR)/parallax)
	$(INSTALL) -m 0644 $(PY_MODULES) $(call dest,$(PYTHONDIR)/parallax/)

uninstall-python:
	rm -rf $(call dest,$(PYTHONDIR)/parallax)

clean-libparallax:
	rm -rf $(LIBPX_BUILD)

# ---------------------------------------------------------------------------------------------
# The GNOME Shell extension parallax@parallaxd (Sources/gnome-extension, docs/gnome.md): JavaScript
# assembled for GNOME Shell 43 and 44 (GNOME_SHELL_FORM=legacy, imports.*: Debian 12) or 45 and
# later (GNOME_SHELL_FORM=esm, ES modules) by Sources/gnome-extension/assemble.sh, its GSettings
# schema in the system's schema directory (compiled there on a live install; Debian's glib
# trigger compiles it for the package).
#
#   make install-gnome-extension  the extension alone (also part of `make install`)

GNOME_SHELL_FORM ?= legacy
GNOME_EXTDIR     ?= $(DATADIR)/gnome-shell/extensions/parallax@parallaxd
GSCHEMADIR       ?= $(DATADIR)/glib-2.0/schemas
GNOME_SCHEMA     := org.gnome.shell.extensions.parallax.gschema.xml
PROJECT_VERSION  := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml)

.PHONY: install-gnome-extension uninstall-gnome-extension

install-files: install-gnome-extension
uninstall: uninstall-gnome-extension

install-gnome-extension:
	rm -rf $(call dest,$(GNOME_EXTDIR))
	Sources/gnome-extension/assemble.sh $(GNOME_SHELL_FORM) $(call dest,$(GNOME_EXTDIR)) $(PROJECT_VERSION)
	$(INSTALL) -d $(call dest,$(GSCHEMADIR))
	$(INSTALL) -m 0644 $(call dest,$(GNOME_EXTDIR)/schemas/$(GNOME_SCHEMA)) $(call dest,$(GSCHEMADIR)/)
	rm -rf $(call dest,$(GNOME_EXTDIR)/schemas)
	chmod -R u=rwX,go=rX $(call dest,$(GNOME_EXTDIR))
	@if [ -z $(call q,$(DESTDIR)) ] && command -v glib-compile-schemas >/dev/null; then glib-compile-schemas $(call q,$(GSCHEMADIR)); fi

uninstall-gnome-extension:
	rm -rf $(call dest,$(GNOME_EXTDIR))
	rm -f $(call dest,$(GSCHEMADIR)/$(GNOME_SCHEMA))
	@if [ -z $(call q,$(DESTDIR)) ] && command -v glib-compile-schemas >/dev/null && [ -d $(call q,$(GSCHEMADIR)) ]; then glib-compile-schemas $(call q,$(GSCHEMADIR)); fi
