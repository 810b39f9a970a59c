// Moves GNOME's own background actors (Meta.BackgroundActor) of one monitor: on the desktop, in
// the overview's workspace cards and on the lock screen. Each is scaled about its centre and
// translated (placement.js); GNOME's actors are never replaced or re-parented, and everything is
// put back on reset(). Plain JavaScript with no imports (see protocol.js): Meta, Graphene, Main
// and placement come in as `deps`.
/* exported BackgroundMover */

var BackgroundMover = class BackgroundMover {
    constructor(deps) {
        this._Meta = deps.Meta;
        this._Graphene = deps.Graphene;
        this._Main = deps.Main;
        this._placement = deps.placement;
        this._touched = new Map();     // actor -> {destroyId, allocationId, rounded}
        this._containers = new Map();  // parent of background actors -> [destroyId, addedId]
        /** Called when a moved actor changes size (the overview's cards grow and shrink) or a
         * background actor comes where backgrounds move: GNOME replaces the actor when the
         * picture changes, and a still device sends no offset that would place the new one. */
        this.onChange = null;
    }

    /** Places every background of monitor `index` for the offset {x, y} (already predicted and
     * clamped) with the travel at full offset {x, y} (logical px); `where` = {overview,
     * lockScreen}: whether those backgrounds move too. */
    apply(index, offset, depthTravel, where) {
        const monitor = this._Main.layoutManager.monitors[index];
        if (!monitor)
            return;
        const actors = this._actors(index, where);
        // Those moved before that are not to move now (the overview closed, a setting turned off,
        // another primary monitor) go back to where GNOME put them.
        const now = new Set(actors.map(a => a.actor));
        for (const actor of [...this._touched.keys()]) {
            if (!now.has(actor))
                this._restore(actor);
        }
        for (const {actor, clip, rounded} of actors) {
            const p = this._placement.placement(offset, depthTravel, actor.width, actor.height, monitor.width);
            this._track(actor, rounded);
            actor.set_pivot_point(0.5, 0.5);
            actor.set_scale(p.scale, p.scale);
            actor.set_translation(p.dx, p.dy, 0);
            if (clip) {
                const r = this._placement.visibleRect(p, actor.width, actor.height);
                actor.set_clip(r.x, r.y, r.width, r.height);
            }
            if (rounded)
                this._placeRoundedClip(actor, index, monitor, offset, depthTravel, p.scale);
        }
    }

    /** Every moved actor as GNOME left it. */
    reset() {
        for (const actor of [...this._touched.keys()])
            this._restore(actor);
        for (const [container, ids] of this._containers) {
            for (const id of ids)
                container.disconnect(id);
        }
        this._containers.clear();
    }

    _restore(actor) {
        const tracked = this._touched.get(actor);
        this._touched.delete(actor);
        actor.disconnect(tracked.destroyId);
        actor.disconnect(tracked.allocationId);
        actor.set_scale(1, 1);
        actor.set_translation(0, 0, 0);
        actor.remove_clip();
        if (tracked.rounded)
            this._restoreRoundedClip(actor);
    }

    /** [{actor, clip, rounded}]: the monitor's backgrounds that are there now. */
    _actors(index, where) {
        const Meta = this._Meta;
        const Main = this._Main;
        const found = [];
        const mine = a => a instanceof Meta.BackgroundActor && a.monitor === index;
        // The desktop: the layout manager's group, with the old actor still fading out after a
        // change of picture. Clipped, so a grown background never covers a neighbouring monitor.
        this._watch(Main.layoutManager._backgroundGroup);
        for (const actor of Main.layoutManager._backgroundGroup.get_children()) {
            if (mine(actor))
                found.push({actor, clip: true, rounded: false});
        }
        // The overview: each workspace card has its own background, in a container that clips to
        // the card; its rounded corners are drawn by the content in monitor coordinates.
        if (where.overview && Main.overview.visible) {
            const walk = parent => {
                for (const child of parent.get_children()) {
                    if (mine(child))
                        found.push({actor: child, clip: false, rounded: true});
                    else
                        walk(child);
                }
            };
            walk(Main.layoutManager.overviewGroup);
        }
        // The lock screen: one blurred widget per monitor holding its background.
        const dialog = Main.screenShield && Main.screenShield._dialog;
        if (where.lockScreen && dialog && dialog._backgroundGroup) {
            for (const widget of dialog._backgroundGroup.get_children()) {
                this._watch(widget);
                for (const actor of widget.get_children()) {
                    if (mine(actor))
                        found.push({actor, clip: true, rounded: false});
                }
            }
        }
        return found;
    }

    _track(actor, rounded) {
        if (this._touched.has(actor))
            return;
        const destroyId = actor.connect('destroy', () => this._touched.delete(actor));
        const allocationId = actor.connect('notify::allocation', () => this._changed());
        this._touched.set(actor, {destroyId, allocationId, rounded});
    }

    /** Hears of background actors added to container (once per container). */
    _watch(container) {
        if (this._containers.has(container))
            return;
        const destroyId = container.connect('destroy', () => this._containers.delete(container));
        const addedId = this._connectChildAdded(container, () => this._changed());
        this._containers.set(container, [destroyId, addedId]);
    }

    /** ClutterActor's 'child-added' (mutter 46 and later); ClutterContainer's 'actor-added' before. */
    _connectChildAdded(container, handler) {
        try {
            return container.connect('child-added', handler);
        } catch (e) {
            return container.connect('actor-added', handler);
        }
    }

    _changed() {
        if (this.onChange)
            this.onChange();
    }

    /** The workspace card's rounded clip (GNOME sets it to the work area, in the monitor's
     * coordinates) mapped back through the scale and translation, so the corners stay where
     * GNOME draws them. */
    _placeRoundedClip(actor, index, monitor, offset, depthTravel, scale) {
        const area = this._workArea(index, monitor);
        const dx = depthTravel.x * offset.x;
        const dy = depthTravel.y * offset.y;
        const cx = monitor.width / 2;
        const cy = monitor.height / 2;
        actor.content.set_rounded_clip_bounds(this._rect(
            cx + (area.x - cx - dx) / scale, cy + (area.y - cy - dy) / scale,
            area.width / scale, area.height / scale));
    }

    _restoreRoundedClip(actor) {
        const monitor = this._Main.layoutManager.monitors[actor.monitor];
        if (monitor) {
            const area = this._workArea(actor.monitor, monitor);
            actor.content.set_rounded_clip_bounds(this._rect(area.x, area.y, area.width, area.height));
        }
    }

    _workArea(index, monitor) {
        const area = this._Main.layoutManager.getWorkAreaForMonitor(index);
        return {x: area.x - monitor.x, y: area.y - monitor.y, width: area.width, height: area.height};
    }

    _rect(x, y, width, height) {
        const rect = new this._Graphene.Rect();
        rect.origin.x = x;
        rect.origin.y = y;
        rect.size.width = width;
        rect.size.height = height;
        return rect;
    }
};
