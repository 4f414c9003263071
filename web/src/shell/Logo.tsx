export function Logo() {
  return (
    <span className="logo">
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
        <path
          d="M7 3c2.2 0 3.5 2.4 3.5 5.2S9 13 7.2 13 4 10.9 4 8.4 4.8 3 7 3Zm10 6c2.2 0 3 2.6 3 5.4S18.8 19 16.8 19s-3.3-2.4-3.3-5S14.8 9 17 9ZM5 15.5h4.5v2.2a2.25 2.25 0 0 1-4.5 0Zm10 6h4.5v.3a2.25 2.25 0 0 1-4.5 0Z"
          fill="currentColor"
        />
      </svg>
      Footfall
    </span>
  );
}
